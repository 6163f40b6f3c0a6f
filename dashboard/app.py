"""warlog's dashboard: a thin router. Run with ``streamlit run dashboard/app.py``.

The pages live in dashboard/views/; their logic lives in tested modules (dashboard/charts.py,
dashboard/data.py, engine/analysis.py). $WARLOG_DB names the database (default: warlog.db here).
"""

import streamlit as st

st.set_page_config(page_title="warlog", page_icon="⚔️", layout="wide")
pages = [
    st.Page("views/replay.py", title="Replay", icon=":material/play_circle:", default=True),
    st.Page("views/play.py", title="Play", icon=":material/sports_esports:"),
    st.Page("views/library.py", title="Library", icon=":material/library_books:"),
    st.Page("views/rules.py", title="Rules", icon=":material/menu_book:"),
]
st.navigation(pages).run()
