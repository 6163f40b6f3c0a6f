"""warlog's dashboard: a thin router. Run with ``streamlit run dashboard/app.py``.

The pages live in dashboard/views/; their logic lives in tested modules (warlog/app/pictures/charts.py,
dashboard/data.py, engine/analysis.py). $WARLOG_DB names the database (default: warlog.db here).
"""

import pandas  # noqa: F401 - see below
import streamlit as st

# pandas whole before any page runs: plotly (the charts) reads it from sys.modules without
# importing it, and a page run that found it half-imported by another thread (a bot's turn, a
# rerun, st.dataframe's lazy import) failed with "partially initialized module 'pandas'" (seen
# once in CI on the Replay page's first chart). Imported here, in the server's first run, every
# later run finds it complete; a page that needs it would have imported it anyway.
# Wide, and a sidebar (Replay's game picker) narrower than Streamlit's 300 px: the boards are as
# wide as their columns, and their counters are read at arm's length at 1280 px.
st.set_page_config(page_title="warlog", page_icon="⚔️", layout="wide", initial_sidebar_state=240)
pages = [
    st.Page("views/replay.py", title="Replay", icon=":material/play_circle:", default=True),
    st.Page("views/play.py", title="Play", icon=":material/sports_esports:"),
    st.Page("views/review.py", title="Review", icon=":material/insights:"),
    st.Page("views/library.py", title="Library", icon=":material/library_books:"),
    st.Page("views/rules.py", title="Rules", icon=":material/menu_book:"),
]
# The pages' names along the top, not in a sidebar: a page with nothing of its own there (Play)
# gives its whole width to its columns, and the board (as wide as its column) to its counters.
st.navigation(pages, position="top").run()
