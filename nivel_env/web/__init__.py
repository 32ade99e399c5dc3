"""The browser game: ``python -m nivel_env serve`` (Starlette, served by uvicorn).

``app.create_app`` builds the web app: a JSON API over ``session.PlaySession`` and one
static page (``static/``) that draws the board and sends moves.  ``view`` says what a
seat may see; ``store`` keeps games and replays in memory with limits.  Needs the
``web`` extra (``pip install -e ".[web]"``).
"""
