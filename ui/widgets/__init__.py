"""Streamlit widgets shared by every page: escaped token chips, charts, the sidebar, the stepper."""
