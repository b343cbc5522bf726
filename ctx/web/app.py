"""`ctx ui`: the web viewer's routes. Server-rendered Jinja2 pages on Starlette; no JavaScript
is needed to use it (one small static script adds a confirm before "forget").

Reads go through ctx/web/data.py, ctx.claude.requests and ctx.semantic (the same hybrid search as
`ctx search`); writes through ctx.core.store.Store and ctx.claude.requests — the functions the CLI and
hooks use — so a change here is what `ctx show` and the next hook see. cue's data comes
from the `cue` CLI (ctx/web/cue_client.py). Every request has passed ctx/web/security.Guard.
"""
from __future__ import annotations

import re
import secrets
import sqlite3
import time
from collections import OrderedDict
from contextlib import contextmanager
from pathlib import Path

import jinja2
from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import HTMLResponse, RedirectResponse, Response
from starlette.routing import Route

from ctx.core import db
from ctx.core.errors import CtxError, DatabaseError, NotFoundError
from ctx.core.model import NODE_TYPES, TIERS, TYPE_TITLES
from ctx.core.store import EVERYTHING, GLOBAL_ONLY, Store, current_scope
from ctx.web import cue_client, data, present
from ctx.web.health import HealthChecks
from ctx.web.security import CSRF_FIELD, Guard, same
from ctx.web.thumbs import Refused, Thumbnails, frame_from_selection

HERE = Path(__file__).parent
STATIC_DIR = HERE / "static"
STATIC_TYPES = {".css": "text/css; charset=utf-8", ".js": "text/javascript; charset=utf-8",
                ".svg": "image/svg+xml", ".png": "image/png", ".ico": "image/x-icon"}
SEARCH_INDEX_SECONDS = 3.0
HEALTH_PAGE = 100  # findings per Health page
_ID_LIKE = re.compile(r"^[0-9A-HJKMNP-TV-Za-hjkmnp-tv-z]{8,26}$")


def create_app(*, token: str, port: int, db_path: str | None = None,
               cue_home: Path | None = None, codes: tuple[str, ...] = (),
               project: str | None = None) -> Guard:
    """The ASGI app for one run: Starlette routes behind the Guard. `project` (`ctx ui -P`)
    is the Session start page's project when the page names none (else the folder's)."""
    env = jinja2.Environment(loader=jinja2.FileSystemLoader(HERE / "templates"),
                             autoescape=True, undefined=jinja2.StrictUndefined)
    env.filters["when"] = _when
    env.filters["ts"] = _ts
    env.globals["qs"] = _qs
    present.install(env)
    from ctx.claude.sessions import include_mode

    env.globals["include_mode"] = include_mode
    viewer = Viewer(env, token, db_path, cue_home or cue_client.home(), project)
    routes = [
        Route("/", viewer.memory),
        Route("/node/{ref}", viewer.node),
        Route("/node/{ref}/tier", viewer.set_tier, methods=["POST"]),
        Route("/node/{ref}/supersede", viewer.supersede, methods=["POST"]),
        Route("/node/{ref}/forget", viewer.forget, methods=["POST"]),
        Route("/node/{ref}/edit", viewer.edit, methods=["POST"]),
        Route("/add", viewer.add, methods=["POST"]),
        Route("/node/{ref}/session", viewer.node_session, methods=["POST"]),
        Route("/context", viewer.context),
        Route("/health", viewer.health),
        Route("/health/fix", viewer.health_fix, methods=["POST"]),
        Route("/health/undo", viewer.health_undo, methods=["POST"]),
        Route("/graph", viewer.graph),
        Route("/sessions", viewer.sessions),
        Route("/sessions/{sid}", viewer.session),
        Route("/sessions/{sid}/add", viewer.session_add, methods=["POST"]),
        Route("/sessions/{sid}/remove", viewer.session_remove, methods=["POST"]),
        Route("/requests", viewer.requests),
        Route("/requests/{rid}", viewer.request),
        Route("/cue", viewer.cue),
        Route("/cue/digests/{did}", viewer.digest),
        Route("/cue/memory", viewer.cue_memory),
        Route("/cue/thumb/{key}.jpg", viewer.thumb),
        Route("/cue/pause", viewer.cue_pause, methods=["POST"]),
        Route("/cue/resume", viewer.cue_resume, methods=["POST"]),
        Route("/static/{name}", viewer.static),
    ]
    app = Starlette(routes=routes, exception_handlers={
        404: viewer.not_found, 405: viewer.not_allowed,
        CtxError: viewer.domain_error, sqlite3.Error: viewer.domain_error})
    viewer.warm()
    return Guard(app, token=token, port=port, codes=codes)


class Viewer:
    def __init__(self, env: jinja2.Environment, token: str, db_path: str | None, cue_home: Path,
                 project: str | None = None):
        self.env = env
        self.project = project
        self.token = token
        self.db_path = db_path
        self.cue_home = cue_home
        self.thumbs = Thumbnails(token, cue_home)
        self.flashes: OrderedDict[str, tuple[str, str]] = OrderedDict()
        self.health_checks = HealthChecks(self.conn)  # diagnoses made off the request
        # Static files: a fixed list read once from the package; a name not in it is a 404,
        # so no request can reach another file.
        self.static_files = {p.name: p.read_bytes() for p in STATIC_DIR.iterdir()
                             if p.is_file() and p.suffix in STATIC_TYPES}

    def warm(self) -> None:
        """Compile the templates and import what every page uses before the address is
        printed, so the first page a person opens costs what every later one does."""
        for name in self.env.list_templates(extensions=["html"]):
            self.env.get_template(name)
        import importlib

        for module in ("ctx.core.compose", "ctx.query", "ctx.claude.requests", "ctx.core.projects",
                       "ctx.doctor.findings", "ctx.doctor.fixes", "ctx.core.hook_cache"):
            importlib.import_module(module)

    # ------------------------------------------------------------------ plumbing
    @contextmanager
    def conn(self, *, write: bool = False):
        conn = db.connect(self.db_path, readonly=not write)
        try:
            yield conn
        finally:
            conn.close()

    def render(self, request: Request, name: str, status_code: int = 200, **context) -> HTMLResponse:
        flash = None
        key = request.query_params.get("flash")
        if key and key in self.flashes:
            flash = self.flashes.pop(key)
        html = self.env.get_template(name).render(
            csrf=self.token, path=request.url.path, flash=flash, section=name.split(".")[0],
            type_titles=TYPE_TITLES, node_types=NODE_TYPES, tiers=TIERS, **context)
        return HTMLResponse(html, status_code=status_code)

    def error_page(self, request: Request, message: str, status: int) -> HTMLResponse:
        return self.render(request, "error.html", status_code=status, message=message)

    def redirect(self, target: str, message: str, kind: str = "ok") -> RedirectResponse:
        key = secrets.token_urlsafe(8)
        self.flashes[key] = (kind, message)
        while len(self.flashes) > 200:
            self.flashes.popitem(last=False)
        sep = "&" if "?" in target else "?"
        return RedirectResponse(f"{target}{sep}flash={key}", status_code=303)

    async def form(self, request: Request) -> dict:
        """The POSTed form, once its CSRF field matches this run's token (else PermissionError)."""
        form = await request.form()
        if not same(form.get(CSRF_FIELD), self.token):
            raise PermissionError
        return {k: v for k, v in form.items() if isinstance(v, str)}

    async def change(self, request: Request, work, default_next: str):
        """Run one POSTed change in a thread; redirect back with what happened."""
        try:
            form = await self.form(request)
        except PermissionError:
            return Response("Forbidden: the form's token is missing or wrong.\n", 403,
                            media_type="text/plain")
        target = _local(form.get("next")) or default_next
        try:
            result = await run_in_threadpool(work, form)
        except CtxError as exc:
            return self.redirect(target, str(exc), "error")
        except sqlite3.Error as exc:
            return self.redirect(target, str(db.translate(exc, self.db_path)), "error")
        message, where = result if isinstance(result, tuple) else (result, None)
        return self.redirect(where or target, message)

    async def not_found(self, request: Request, exc) -> HTMLResponse:
        return self.error_page(request, "Nothing here.", 404)

    async def domain_error(self, request: Request, exc) -> HTMLResponse:
        """A store error on a page (locked, corrupt, bad input): one sentence, no traceback."""
        if isinstance(exc, sqlite3.Error):
            exc = db.translate(exc, self.db_path)
        status = 404 if isinstance(exc, NotFoundError) else 400 if not isinstance(
            exc, DatabaseError) else 503
        return self.error_page(request, str(exc), status)

    async def not_allowed(self, request: Request, exc) -> Response:
        return Response("Method not allowed.\n", 405, media_type="text/plain")

    # ------------------------------------------------------------------ memory
    def memory(self, request: Request) -> HTMLResponse:
        params = request.query_params
        filters, problems = data.Filters.parse(params)
        q = (params.get("q") or "").strip()
        mode = params.get("mode") if params.get("mode") in ("hybrid", "semantic", "keyword") \
            else "hybrid"
        context = {"filters": filters, "problems": problems, "q": q, "mode": mode,
                   "show_all": params.get("all") == "1",
                   "top_k": _int(params.get("k"), 20, 1, 500)}
        t0 = time.perf_counter()
        if q and _ID_LIKE.match(q):  # a pasted id: open that node
            with self.conn() as conn:
                try:
                    return RedirectResponse(f"/node/{Store(conn).resolve(q)}", status_code=303)
                except CtxError:
                    pass  # not an id after all: search for it
        if q:
            context.update(self._search(q, mode, filters, context["show_all"],
                                        context["top_k"]))
            with self.conn() as conn:
                context["here"] = self._here(conn)
                context["facets"] = data.facets(conn)
                context["projects"] = data.projects(conn)
        else:
            before = params.get("before")
            with self.conn() as conn:
                context["here"] = self._here(conn)
                context["page"] = data.list_page(conn, filters, before=before)
                context["total"] = data.count(conn, filters)
                context["facets"] = data.facets(conn)
                context["projects"] = data.projects(conn)
            context["before"] = before
        context["elapsed_ms"] = (time.perf_counter() - t0) * 1000
        return self.render(request, "memory.html", **context)

    def _here(self, conn) -> str | None:
        """The project a new memory goes to by default: `ctx ui -P`'s, else the folder's."""

        try:
            scope = current_scope(conn, project=self.project)
            return scope.project.name if scope.project is not None else None  # a known one
        except CtxError:
            return None

    def _search(self, q: str, mode: str, filters: data.Filters, show_all: bool,
                top_k: int = 20) -> dict:
        from ctx.semantic.search import SearchOptions, search

        note = None
        if mode != "keyword":
            from ctx.semantic.model import locate

            if locate() is None:
                note = ("The embedding model is not built, so this is a keyword search "
                        "(`ctx model build` builds it; `make model` in a checkout).")
                mode = "keyword"
        options = SearchOptions(mode=mode, filter=filters.expr(), top_k=top_k,
                                include_superseded=filters.include_superseded)
        try:
            with self.conn(write=True) as conn:
                result = search(conn, q, options,
                                index_deadline=time.monotonic() + SEARCH_INDEX_SECONDS)
                hits = result.candidates if show_all else result.hits
                nodes = {n.id: n for n in Store(conn).get_many([h.node_id for h in hits])}
                short = data.names(conn, list(nodes))
        except CtxError as exc:
            return {"search_error": str(exc), "hits": [], "result": None, "note": note}
        from ctx.claude.sessions import include_mode
        from ctx.semantic.search import ranking_score, with_nodes

        rows = []
        for h, node, chunk in with_nodes(hits, nodes):
            rows.append({"hit": h, "node": node, "short": short[node.id]["short"],
                         "mode": include_mode(node.tags), "match": chunk or node.content,
                         "score": ranking_score(h, result.options.mode),
                         "similarity": h.similarity})
        if result.not_indexed:
            extra = (f"{result.not_indexed} node(s) are not embedded yet and were matched by "
                     f"words only; `ctx index` embeds them.")
            note = f"{note} {extra}" if note else extra
        return {"hits": rows, "result": result, "note": note, "search_error": None}

    def node(self, request: Request) -> HTMLResponse:
        replace_q = (request.query_params.get("replace") or "").strip()[:200]
        try:
            with self.conn() as conn:
                detail = data.node_detail(conn, request.path_params["ref"])
                recent = data.sessions_for(conn, detail.node)  # its project's sessions only
                seen_in = data.requests_with(conn, detail.node.id)
                candidates = [] if detail.node.superseded_by else \
                    data.replacements(conn, detail.node, replace_q)
                versions = Store(conn).versions(detail.node.id)
        except NotFoundError as exc:
            return self.error_page(request, str(exc), 404)
        except CtxError as exc:
            return self.error_page(request, str(exc), 400)
        return self.render(request, "node.html", d=detail, n=detail.node, sessions=recent,
                           seen_in=seen_in, replacements=candidates, replace_q=replace_q,
                           versions=versions)

    async def set_tier(self, request: Request):
        ref = request.path_params["ref"]

        def work(form):
            tier = form.get("tier", "")
            with self.conn(write=True) as conn:
                store = Store(conn)
                if tier == data.NO_TIER:
                    node = store.get(ref)
                    node = store.untag(node.id, [t for t in node.tags if t.startswith("tier:")])
                else:
                    node = store.tag(ref, [f"tier:{tier}"])
            return f"{node.id} is now {'tier:' + node.tier if node.tier else 'without a tier'}."

        return await self.change(request, work, f"/node/{ref}")

    async def supersede(self, request: Request):
        ref = request.path_params["ref"]

        def work(form):
            new = (form.get("new") or "").strip()
            if not new:
                raise CtxError("give the id of the node that replaces this one")
            with self.conn(write=True) as conn:
                old, newer = Store(conn).supersede(ref, new)
            return f"{old.id} is now superseded by {newer.id}."

        return await self.change(request, work, f"/node/{ref}")

    async def edit(self, request: Request):
        """A new version of the memory, same id: text, type and tags as the form says (the
        previous version is kept, Store.edit)."""
        ref = request.path_params["ref"]

        def work(form):
            content = (form.get("content") or "").replace("\r\n", "\n").strip()
            if not content:
                raise CtxError("a memory needs some text; Forget removes one")
            node_type = (form.get("type") or "").strip() or None
            tags = _tags(form.get("tags"))
            with self.conn(write=True) as conn:
                store = Store(conn)
                node = store.get(ref)
                tier = [t for t in node.tags if t.startswith("tier:")]
                # the tier has its own control on the page; the tags box holds the others
                node, version = store.edit(node.id, content=content, type=node_type,
                                           tags=tags + [t for t in tier if t not in tags])
            if version is None:
                return "Nothing changed."
            return f"Saved. The previous text is kept as version {version} (below)."

        return await self.change(request, work, f"/node/{ref}")

    async def add(self, request: Request):
        """A new memory, as `ctx add` stores it (the guard and the duplicate check included)."""

        def work(form):
            from ctx.claude.actions import Memory, Status, remember

            content = (form.get("content") or "").replace("\r\n", "\n").strip()
            if not content:
                raise CtxError("write the memory's text first")
            tier = (form.get("tier") or "").strip()
            where = (form.get("project") or "").strip()
            with self.conn(write=True) as conn:
                store = Store(conn)
                scope = GLOBAL_ONLY if where in ("", data.GLOBAL) else \
                    current_scope(conn, project=where)
                outcome = remember(store, Memory(
                    content, type=(form.get("type") or "fact").strip(), tier=tier or None,
                    tags=tuple(_tags(form.get("tags"))),
                    where="global" if scope.project is None else "project"), scope=scope)
            if outcome.status is Status.FAILED:
                raise CtxError(outcome.message)
            return outcome.message[:1].upper() + outcome.message[1:] + ".", \
                f"/node/{outcome.node_ids[0]}"

        return await self.change(request, work, "/")

    async def forget(self, request: Request):
        ref = request.path_params["ref"]

        def work(form):
            with self.conn(write=True) as conn:
                node = Store(conn).delete(ref)
            from ctx.claude.request_view import item_name

            return f"Forgot {node.id} ({node.type}: {item_name(node.content)}).", "/"

        return await self.change(request, work, "/")

    # ------------------------------------------------------------------ health (ctx doctor)
    def health(self, request: Request) -> HTMLResponse:
        """`ctx doctor` as a page: each finding with its evidence and a one-click fix. The
        diagnosis is made in the background (ctx/web/health.py): the page answers at once
        with the newest one it has and reloads itself while a newer one is made."""
        from ctx.core.hook_cache import store_version
        from ctx.core.ids import short_ids
        from ctx.doctor import fixes
        from ctx.doctor.findings import KINDS

        wanted = request.query_params.get("kind") or ""
        kinds = (wanted,) if wanted in KINDS else KINDS
        with self.conn() as conn:
            version = store_version(conn)
        diagnosis, current = self.health_checks.get(kinds, version)
        if diagnosis is not None and diagnosis.error and not self.health_checks.running(kinds):
            return self.error_page(request, f"The check could not finish: {diagnosis.error}", 503)
        found = diagnosis.findings if diagnosis is not None else []
        # a page of findings at a time: a generated or imported store can hold thousands
        start = _int(request.query_params.get("start"), 0, 0, max(len(found) - 1, 0))
        shown = found[start:start + HEALTH_PAGE]
        with self.conn() as conn:
            store = Store(conn)
            short = short_ids(store, list(dict.fromkeys(i for f in shown for i in f.ids
                                                        if _ID_LIKE.match(i))))
            runs = fixes.history(store, 5)
            live = store.live_counts().live
            named = {n.id: n for n in store.get_many(list(short))}
        from ctx.web.finding_view import KIND_HELP, KIND_TITLES, cards
        counts: dict[str, int] = {}
        for f in found:
            counts[f.kind] = counts.get(f.kind, 0) + 1
        return self.render(request, "health.html", cards=cards(shown, named, short),
                           kind_titles=KIND_TITLES, kind_help=KIND_HELP,
                           findings=shown, total=len(found), start=start,
                           page_size=HEALTH_PAGE, short=short, counts=counts, kinds=KINDS,
                           wanted=wanted, runs=runs, checked=diagnosis is not None,
                           current=current, live=live,
                           elapsed_ms=diagnosis.elapsed_ms if diagnosis is not None else 0.0)

    async def health_fix(self, request: Request):
        """Apply one finding. The finding is found again here from its kind and ids — what
        the form says is never run as it is — so a stale page cannot do anything else."""
        from ctx.core.hook_cache import store_version
        from ctx.doctor import fixes
        from ctx.doctor.findings import KINDS, Options, diagnose

        def work(form):
            kind = form.get("kind", "")
            ids = tuple(i for i in (form.get("ids") or "").split(",") if i)
            if kind not in KINDS or not ids:
                raise CtxError("say which finding to fix")
            with self.conn(write=True) as conn:
                store = Store(conn)
                # the page's own diagnosis when the store has not changed since (a new one
                # takes seconds over a large store), else the kind is diagnosed again now
                match = self.health_checks.find(kind, ids, store_version(conn))
                if match is None:
                    match = [f for f in diagnose(store, Options(kinds=(kind,), vectors=False))
                             if f.ids == ids]
                if not match:
                    raise CtxError("that finding is no longer there (fixed already, or the "
                                   "memory changed); the page now shows what is")
                report = fixes.apply(store, match)
            done = "; ".join(report.done) or "nothing to change"
            return f"Fixed: {done}. (Undo puts it back.)"

        return await self.change(request, work, "/health")

    async def health_undo(self, request: Request):
        from ctx.doctor import fixes

        def work(form):
            with self.conn(write=True) as conn:
                report = fixes.undo(Store(conn), form.get("run") or None)
            return f"Undid {report.changes} change(s) of run {report.run_id}."

        return await self.change(request, work, "/health")

    # ------------------------------------------------------------------ session start
    def context(self, request: Request) -> HTMLResponse:
        """What a new Claude Code session is given: the default view composed under the
        hook's character cap, for a project (+ global) — the same compose() the hook runs."""
        from ctx.core.compose import compose, render_markdown
        from ctx.core.settings import hook_max_chars

        wanted = (request.query_params.get("project") or "").strip()
        cap = hook_max_chars()
        with self.conn() as conn:
            store = Store(conn)
            if wanted == "all":
                scope = EVERYTHING
            elif wanted:
                scope = current_scope(conn, project=wanted)  # NotFoundError → error page
            else:  # `ctx ui -P NAME`, else the folder `ctx ui` runs in, as a hook would
                scope = current_scope(conn, project=self.project)
            comp = compose(store, max_chars=cap, scope=scope)
            text = render_markdown(comp)
            names = data.projects(conn)
        return self.render(request, "context.html", comp=comp, text=text, cap=cap,
                           scope_label=scope.label, wanted=wanted, projects=names)

    # ------------------------------------------------------------------ graph
    def graph(self, request: Request) -> HTMLResponse:
        """A project's memory as a graph (default: the folder `ctx ui` runs in, as a hook
        would see it), or one node's neighbourhood; filtered by type and tier."""
        from ctx.web import graph

        params = request.query_params
        focus = (params.get("focus") or "").strip() or None
        try:
            depth = min(3, max(1, int(params.get("depth") or 2)))
        except ValueError:
            depth = 2
        wanted = (params.get("project") or "").strip()
        types = tuple(t for t in params.getlist("type") if t in NODE_TYPES)
        tier = params.get("tier") if params.get("tier") in (*TIERS, data.NO_TIER) else None
        try:
            with self.conn() as conn:
                if wanted == "all":
                    scope = EVERYTHING
                elif wanted:
                    scope = current_scope(conn, project=wanted)
                else:
                    scope = current_scope(conn)
                g = graph.build(conn, focus, depth=depth, scope=scope, types=types, tier=tier)
                names = data.projects(conn)
        except CtxError as exc:
            return self.error_page(request, str(exc), 404)
        return self.render(request, "graph.html", g=g, depth=depth, max_nodes=graph.MAX_NODES,
                           wanted=wanted, projects=names, types=types, tier=tier)

    # ------------------------------------------------------------------ sessions, requests
    def sessions(self, request: Request) -> HTMLResponse:
        limit = _int(request.query_params.get("limit"), 50, 1, 1000)
        with self.conn() as conn:
            rows = data.session_rows(conn, limit + 1)
        return self.render(request, "sessions.html", sessions=rows[:limit],
                           more=len(rows) > limit, limit=limit)

    def session(self, request: Request) -> HTMLResponse:
        from ctx.claude import request_view, requests, sessions

        try:
            with self.conn() as conn:
                sid = sessions.resolve_session(conn, request.path_params["sid"])
                sess = sessions.get_session(conn, sid)
                items = sessions.session_items(conn, sid)
                info = data.names(conn, [i.node_id for i in items])
                reqs = requests.list_requests(conn, session_id=sid, limit=100)
                project = data.session_projects(conn, [sid]).get(sid)
                did = data.session_did(conn, sid)
        except CtxError as exc:
            return self.error_page(request, str(exc), 404)
        rows = [{"item": i, "info": info.get(i.node_id),
                 "priority": request_view.tier_priority([f"tier:{info[i.node_id]['tier']}"])
                 if i.node_id in info else 9} for i in items]
        rows.sort(key=lambda r: (r["item"].state != "active", r["priority"],
                                 (r["info"] or {}).get("name", "").lower()))
        return self.render(request, "session.html", s=sess, rows=rows, reqs=reqs, project=project,
                           did=did)

    async def node_session(self, request: Request):
        """Add or remove this node to/from the session chosen in the form."""
        ref = request.path_params["ref"]
        return await self._session_change(request, None, lambda form: form.get("op") == "add",
                                          lambda form: ref, f"/node/{ref}")

    async def _session_change(self, request: Request, sid_ref: str | None, add, node_of,
                              back: str):
        from ctx.claude import sessions

        def work(form):
            is_add = add(form)
            with self.conn(write=True) as conn:
                sid = sessions.resolve_session(conn, sid_ref or form.get("session") or "")
                node_id = Store(conn).resolve(node_of(form) or "")
                (sessions.session_add if is_add else sessions.session_remove)(conn, sid, node_id)
            return (f"{'Added' if is_add else 'Removed'} {node_id} {'to' if is_add else 'from'} "
                    f"session {sid}.")

        return await self.change(request, work, back)

    async def session_add(self, request: Request):
        sid = request.path_params["sid"]
        return await self._session_change(request, sid, lambda form: True,
                                          lambda form: form.get("node"), f"/sessions/{sid}")

    async def session_remove(self, request: Request):
        sid = request.path_params["sid"]
        return await self._session_change(request, sid, lambda form: False,
                                          lambda form: form.get("node"), f"/sessions/{sid}")

    def requests(self, request: Request) -> HTMLResponse:
        from ctx.claude import requests

        limit = _int(request.query_params.get("limit"), 50, 1, 1000)
        with self.conn() as conn:
            rows = requests.list_requests(conn, limit=limit + 1)
        return self.render(request, "requests.html", reqs=rows[:limit], more=len(rows) > limit,
                           limit=limit)

    def request(self, request: Request) -> HTMLResponse:
        from ctx.claude import request_view, requests

        try:
            with self.conn() as conn:
                record = requests.get_request(conn, request.path_params["rid"])
                view = request_view.request_view(conn, record)
        except CtxError as exc:
            return self.error_page(request, str(exc), 404)
        with self.conn() as conn:  # the seed's "description tooltip": the item's text
            texts = {n.id: n.content for n in Store(conn).get_many(
                [i["node_id"] for i in view["items"]])}
        for item in view["items"]:
            text = " ".join(texts.get(item["node_id"], "").split())
            item["description"] = text if len(text) <= 400 else text[:399] + "…"
        included = [i for i in view["items"] if i["included"]]
        order = list(TYPE_TITLES)

        def columns(items: list[dict]) -> list[tuple[str, list[dict]]]:
            groups: dict[str, list[dict]] = {}
            for item in items:
                groups.setdefault(item["type"] or "deleted", []).append(item)
            return sorted(groups.items(), key=lambda kv: order.index(kv[0])
                          if kv[0] in order else 99)

        # what this prompt added first: the rest was in the conversation already
        sections = [(key, title, columns([i for i in included if _sent(i) == key]))
                    for key, title in (("now", "Sent now, with this prompt"),
                                       ("earlier", "Already in context from earlier"),
                                       ("unsent", "Included, not sent"))]
        excluded = sorted((i for i in view["items"] if not i["included"]),
                          key=lambda i: (i["rank"] is None, i["rank"] or 0))
        from ctx.claude.request_view import sent_counts

        return self.render(request, "request.html", v=view, sections=sections,
                           excluded=excluded, counts=sent_counts(view),
                           threshold=_threshold(view))

    # ------------------------------------------------------------------ cue
    def cue(self, request: Request) -> HTMLResponse:
        from concurrent.futures import ThreadPoolExecutor

        limit = _int(request.query_params.get("limit"), 50, 1, 1000)
        with ThreadPoolExecutor(2) as pool:
            digests = pool.submit(cue_client.digests, limit + 1)
            status = pool.submit(cue_client.status)
            digests, status = digests.result(), status.result()
        found = digests.data if isinstance(digests.data, list) else []
        return self.render(request, "cue.html", digests=found[:limit], more=len(found) > limit,
                           limit=limit, error=digests.error, status=status.data,
                           status_error=status.error)

    def digest(self, request: Request) -> HTMLResponse:
        raw = request.path_params["did"]
        if not (raw.isascii() and raw.isdigit() and len(raw) <= 18):  # 4,301 digits: int() refuses
            return self.error_page(request, "no such digest", 404)
        found = cue_client.digest(int(raw))
        if found.error or not isinstance(found.data, dict):
            return self.error_page(request, found.error or "no such digest", 404)
        d = found.data
        frames, frames_error = [], None
        if d.get("frame_count"):
            sel = cue_client.frames(d["window_start"], d["window_end"], d["frame_count"])
            if sel.error or not isinstance(sel.data, dict):
                frames_error = sel.error or "cue select printed nothing"
            else:
                paused = sel.data.get("paused") or []
                for f in sel.data.get("frames") or []:
                    frame = frame_from_selection(f, paused)
                    try:
                        self.thumbs.allowed(frame)
                        key = self.thumbs.register(frame)
                    except Refused:
                        key = None
                    frames.append({**f, "key": key, "name": Path(str(f.get("path", ""))).name})
        return self.render(request, "digest.html", d=d, frames=frames, frames_error=frames_error)

    def cue_memory(self, request: Request) -> HTMLResponse:
        found = cue_client.memory()
        return self.render(request, "cue_memory.html", m=found.data if isinstance(found.data, dict)
                           else None, error=found.error)

    def thumb(self, request: Request) -> Response:
        try:
            body = self.thumbs.jpeg(request.path_params["key"])
        except Refused:
            return Response("Not found.\n", 404, media_type="text/plain")
        return Response(body, media_type="image/jpeg")

    async def cue_pause(self, request: Request):
        return await self._cue_toggle(request, cue_client.pause, "cue is paused.")

    async def cue_resume(self, request: Request):
        return await self._cue_toggle(request, cue_client.resume, "cue is recording again.")

    async def _cue_toggle(self, request: Request, action, message: str):
        try:
            await self.form(request)
        except PermissionError:
            return Response("Forbidden: the form's token is missing or wrong.\n", 403,
                            media_type="text/plain")
        result = await run_in_threadpool(action)
        if result.error:
            return self.redirect("/cue", f"cue: {result.error}", "error")
        return self.redirect("/cue", message)

    # ------------------------------------------------------------------ static
    def static(self, request: Request) -> Response:
        name = request.path_params["name"]
        body = self.static_files.get(name)
        if body is None:
            return Response("Not found.\n", 404, media_type="text/plain")
        return Response(body, media_type=STATIC_TYPES[Path(name).suffix],
                        headers={"cache-control": "no-cache"})


def _tags(raw: str | None) -> list[str]:
    """Tags as typed in a form: separated by commas or spaces."""
    return list(dict.fromkeys(t for t in re.split(r"[,\s]+", raw or "") if t))


def _sent(item: dict) -> str:
    return item["injected"] if item["injected"] in ("now", "earlier") else "unsent"


def _threshold(view: dict) -> float | None:
    return data.threshold(view.get("path"), view.get("params") or {})


def _local(target: str | None) -> str | None:
    """A same-site path to go back to, or None (no scheme, no host, no `//`)."""
    if not target or not target.startswith("/") or target.startswith("//") or "\\" in target:
        return None
    return target


def _int(raw: str | None, default: int, lo: int, hi: int) -> int:
    try:
        return min(hi, max(lo, int(raw))) if raw else default
    except ValueError:
        return default


def _qs(base: dict, **extra) -> str:
    """A query string from the page's parameters with some replaced (None drops one)."""
    from urllib.parse import urlencode

    merged = {**base, **extra}
    return urlencode({k: v for k, v in merged.items() if v is not None and v != ""})


def _when(value: str | None) -> str:
    """2026-11-21T23:05:08.123Z → 2026-11-21 23:05:08."""
    return (value or "")[:19].replace("T", " ")


def _ts(value) -> str:
    from datetime import UTC, datetime

    if value is None:
        return "—"
    try:
        return datetime.fromtimestamp(float(value), UTC).strftime("%Y-%m-%d %H:%M:%S")
    except (TypeError, ValueError, OverflowError):
        return str(value)
