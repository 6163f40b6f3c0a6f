"""The pictures both faces draw: the board (plotly and SVG), its counters and markers, and the
charts of a battle. Pure drawing from a game's state and log, no Streamlit: the dashboard shows
them, `warlog report` and `warlog review --markdown` write them to files."""
