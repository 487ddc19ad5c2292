"""The page a hub serves when its storage cannot be used: what is wrong, what to do.

Every phone at the table that opens the scorepad sees the problem instead of a dead
link; every API call answers 503 with the same text. Nothing here touches the files.
"""

from __future__ import annotations

from html import escape

from flask import Flask, Response, jsonify

_PAGE = """<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Mexican Train hub: storage problem</title></head>
<body><main>
<h1>The hub cannot use its storage</h1>
<p><strong>What is wrong:</strong> {problem}</p>
<p><strong>Where:</strong> <code>{path}</code></p>
<p><strong>What to do:</strong> {remedy}</p>
<p>Nothing has been deleted. The table's buttons do nothing until this is fixed and the
hub is started again.</p>
</main></body></html>
"""


def create_maintenance_app(problem: dict[str, str]) -> Flask:
    """A Flask app that shows ``problem`` (``path``, ``problem``, ``remedy``) and
    answers every API call with 503."""
    app = Flask(__name__, static_folder=None)
    page = _PAGE.format(**{k: escape(v) for k, v in problem.items()})
    error = (
        f"storage problem: {problem['path']}: {problem['problem']}. What to do: {problem['remedy']}"
    )

    @app.route("/api/", defaults={"rest": ""}, methods=["GET", "POST", "PUT", "DELETE"])
    @app.route("/api/<path:rest>", methods=["GET", "POST", "PUT", "DELETE"])
    def api(rest: str) -> tuple[Response, int]:
        body = {"error": "storage_problem", "params": {"path": problem["path"]}}
        return jsonify(body | {"message": error, "storage": problem}), 503

    @app.route("/", defaults={"rest": ""})
    @app.route("/<path:rest>")
    def show(rest: str) -> Response:
        return Response(
            page,
            status=503,
            mimetype="text/html",
            headers={"Retry-After": "60", "Cache-Control": "no-store"},
        )

    return app
