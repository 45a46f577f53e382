"""Renderers: terminal tables, Markdown, stable JSON, HTML."""
