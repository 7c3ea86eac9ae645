"""The pages: the play page, the dashboard page and their static files (no build step)."""
from __future__ import annotations

from pathlib import Path

from flask import Blueprint, send_from_directory

STATIC = Path(__file__).resolve().parent / "static"
pages = Blueprint("pages", __name__)


@pages.get("/")
def index():
    return send_from_directory(STATIC, "index.html")


@pages.get("/dashboard")
def dashboard_page():
    return send_from_directory(STATIC, "dashboard.html")


@pages.get("/static/<path:name>")
def static_file(name: str):
    return send_from_directory(STATIC, name)
