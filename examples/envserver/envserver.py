#!/usr/bin/env python3
"""Serve an exec: environment of pats over HTTP, in the shape of OpenEnv's
reset, step and state (docs/env-protocol.md, "Environment servers").

    python3 examples/envserver/envserver.py --port 8000 -- COMMAND [ARG...]

starts COMMAND (any program that speaks the exec: protocol of
docs/env-protocol.md on its stdin and stdout) as --children child
processes and answers

    GET  /health                 {"status": "healthy"}
    GET  /metadata               {"name", "description", "version", "task_types", "splits", "vocabulary"}
    GET  /tasks?split=S          {"tasks": [...]}
    GET  /state?episode_id=E     {"episode_id": E, "step_count": N}
    POST /reset   {"seed", "episode_id", "task_id", "request_id"}
                  -> {"observation": {...}, "reward": null, "done": false}
    POST /step    {"action": {"text": A}, "episode_id", "request_id"}
                  -> {"observation": {...}, "reward": R, "done": D}
    POST /close   {"episode_id"} -> {"closed": true}

Each episode stays on the child that started it; a request repeated with
the same request_id (a client's retry) gets the answer given before,
without asking the child again. Standard library only.

For tests and benchmarks: --step-delay SECONDS sleeps before each step
(a slow simulator); --fail hang-after:N stops answering after N steps;
--fail drop-after:N exits at once at step N+1 (a server that goes away).
The first line on stdout is "listening on http://HOST:PORT".
"""

import argparse
import collections
import json
import os
import socket
import subprocess
import sys
import threading
import time
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


class ChildError(Exception):
    """The child answered {"error": ...}: the request was refused."""


class ChildBroken(Exception):
    """The child crashed or wrote what is not an answer."""


class Child:
    """One exec: child, one request at a time."""

    def __init__(self, argv):
        self.proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        self.lock = threading.Lock()
        self.next = 0
        self.open = 0

    def call(self, req):
        line = (json.dumps(req) + "\n").encode()
        with self.lock:
            try:
                self.proc.stdin.write(line)
                self.proc.stdin.flush()
                got = self.proc.stdout.readline()
            except OSError as e:
                raise ChildBroken("child: %s" % e)
        if not got:
            raise ChildBroken("child closed its output (exit status %s)" % self.proc.poll())
        try:
            answer = json.loads(got)
        except ValueError:
            raise ChildBroken("child wrote a line that is not JSON: %r" % got[:120])
        if isinstance(answer, dict) and answer.get("error"):
            raise ChildError(answer["error"])
        return answer


class Episode:
    def __init__(self, child, number):
        self.child = child
        self.number = number
        self.steps = 0
        self.last = None  # (request_id, status, body) of the last answer
        self.done = False
        self.lock = threading.Lock()  # one step at a time: a retry waits for the first try's answer


class Server:
    def __init__(self, argv, children, delay, fail):
        self.children = [Child(argv) for _ in range(children)]
        self.info = self.children[0].call({"op": "info"})
        for c in self.children[1:]:
            c.call({"op": "info"})
        self.delay = delay
        self.fail, self.fail_at = None, 0
        if fail:
            kind, _, n = fail.partition(":")
            if kind not in ("hang-after", "drop-after") or not n.isdigit():
                raise SystemExit("envserver: --fail %r: want hang-after:N or drop-after:N" % fail)
            self.fail, self.fail_at = kind, int(n)
        self.lock = threading.Lock()
        self.episodes = {}
        self.finished = collections.OrderedDict()  # episode_id -> Episode, the last 4096
        self.steps = 0

    def metadata(self):
        i = self.info
        return {"name": i.get("name", ""), "description": "an exec: environment served over HTTP",
                "version": str(i.get("protocol", 1)), "task_types": i.get("task_types", []),
                "splits": i.get("splits", []), "vocabulary": i.get("vocabulary", [])}

    def episode(self, eid):
        with self.lock:
            return self.episodes.get(eid) or self.finished.get(eid)

    def reset(self, body):
        eid, rid = body.get("episode_id"), body.get("request_id")
        if not isinstance(eid, str) or not eid:
            return 422, {"detail": "episode_id is required"}
        with self.lock:
            ep = self.episodes.get(eid) or self.finished.get(eid)
            if ep is not None:
                if rid and ep.last and ep.last[0] == rid:
                    return ep.last[1], ep.last[2]
                return 409, {"detail": "episode %s is already started" % eid}
            child = min(self.children, key=lambda c: c.open)
            child.next += 1
            child.open += 1
            ep = Episode(child, child.next)
            self.episodes[eid] = ep
        try:
            r = child.call({"op": "reset", "id": body.get("task_id", ""), "seed": int(body.get("seed") or 0),
                            "episode": ep.number})
        except ChildError as e:
            self.drop(eid, ep)
            return 400, {"detail": str(e)}
        obs = {"text": r.get("observation", ""), "task_id": r.get("task_id", ""),
               "task_type": r.get("task_type", ""), "goal": r.get("goal", ""),
               "admissible": r.get("admissible", []), "max_steps": r.get("max_steps", 0),
               "features": r.get("features", []), "key": r.get("key", "")}
        answer = {"observation": obs, "reward": None, "done": False}
        ep.last = (rid, 200, answer)
        return 200, answer

    def step(self, body):
        eid, rid = body.get("episode_id"), body.get("request_id")
        action = body.get("action")
        if not isinstance(action, dict) or not isinstance(action.get("text"), str):
            return 422, {"detail": "action must be {\"text\": ...}"}
        ep = self.episode(eid)
        if ep is None:
            return 404, {"detail": "no episode %s" % eid}
        with ep.lock:
            return self.step_locked(ep, eid, rid, action)

    def step_locked(self, ep, eid, rid, action):
        if rid and ep.last and ep.last[0] == rid:
            return ep.last[1], ep.last[2]
        if ep.done:
            return 409, {"detail": "episode %s is over" % eid}
        with self.lock:
            self.steps += 1
            n = self.steps
        if self.fail == "hang-after" and n > self.fail_at:
            time.sleep(3600)
        if self.fail == "drop-after" and n > self.fail_at:
            os._exit(3)
        if self.delay > 0:
            time.sleep(self.delay)
        try:
            r = ep.child.call({"op": "step", "episode": ep.number, "action": action["text"]})
        except ChildError as e:
            return 400, {"detail": str(e)}
        ep.steps += 1
        obs = {"text": r.get("observation", ""), "admissible": r.get("admissible", []),
               "features": r.get("features", []), "key": r.get("key", ""), "success": bool(r.get("success")),
               "score": r.get("score", 0), "valid": bool(r.get("valid"))}
        answer = {"observation": obs, "reward": r.get("reward", 0), "done": bool(r.get("done"))}
        ep.last = (rid, 200, answer)
        if answer["done"]:
            self.drop(eid, ep)
        return 200, answer

    def close(self, body):
        eid = body.get("episode_id")
        with self.lock:
            ep = self.episodes.get(eid)
        if ep is not None and not ep.done:
            ep.child.call({"op": "close", "episode": ep.number})
            self.drop(eid, ep)
        return 200, {"closed": True}

    def drop(self, eid, ep):
        with self.lock:
            if self.episodes.pop(eid, None) is not None:
                ep.child.open -= 1
            ep.done = True
            self.finished[eid] = ep
            while len(self.finished) > 4096:
                self.finished.popitem(last=False)

    def state(self, eid):
        ep = self.episode(eid) if eid else None
        if eid and ep is None:
            return 404, {"detail": "no episode %s" % eid}
        return 200, {"episode_id": eid, "step_count": ep.steps if ep else 0}


def handler(server):
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def setup(self):
            super().setup()
            # Headers and body go out in two writes: without this the body
            # waits for the client's delayed ACK of the headers (some 40 ms).
            self.request.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

        def log_message(self, *args):
            pass

        def answer(self, status, body):
            data = json.dumps(body).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def run(self, f, *args):
            try:
                self.answer(*f(*args))
            except ChildBroken as e:
                self.answer(500, {"detail": str(e)})
            except ChildError as e:
                self.answer(400, {"detail": str(e)})

        def do_GET(self):
            u = urllib.parse.urlsplit(self.path)
            q = urllib.parse.parse_qs(u.query)
            if u.path == "/health":
                self.answer(200, {"status": "healthy"})
            elif u.path == "/metadata":
                self.answer(200, server.metadata())
            elif u.path == "/tasks":
                split = q.get("split", [""])[0]
                self.run(lambda: (200, {"tasks": server.children[0].call({"op": "tasks", "split": split})["tasks"]}))
            elif u.path == "/state":
                self.run(server.state, q.get("episode_id", [None])[0])
            else:
                self.answer(404, {"detail": "no route %s" % u.path})

        def do_POST(self):
            n = int(self.headers.get("Content-Length") or 0)
            try:
                body = json.loads(self.rfile.read(n) or b"{}")
            except ValueError:
                return self.answer(422, {"detail": "the body is not JSON"})
            if not isinstance(body, dict):
                return self.answer(422, {"detail": "the body is not a JSON object"})
            route = {"/reset": server.reset, "/step": server.step, "/close": server.close}.get(self.path)
            if route is None:
                return self.answer(404, {"detail": "no route %s" % self.path})
            self.run(route, body)

    return Handler


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--host", default="127.0.0.1")
    p.add_argument("--port", type=int, default=8000, help="0: any free port")
    p.add_argument("--children", type=int, default=1, help="child processes serving the episodes")
    p.add_argument("--step-delay", type=float, default=0.0, help="seconds slept before each step")
    p.add_argument("--fail", default="", help="hang-after:N or drop-after:N (tests)")
    p.add_argument("command", nargs=argparse.REMAINDER, help="-- COMMAND [ARG...]: the exec: environment")
    a = p.parse_args()
    argv = a.command[1:] if a.command[:1] == ["--"] else a.command
    if not argv:
        p.error("give the environment's command after --")
    if a.children < 1:
        p.error("--children must be at least 1")
    server = Server(argv, a.children, a.step_delay, a.fail)
    httpd = ThreadingHTTPServer((a.host, a.port), handler(server))
    httpd.daemon_threads = True
    print("listening on http://%s:%d" % (a.host, httpd.server_address[1]), flush=True)
    try:
        httpd.serve_forever()
    except KeyboardInterrupt:
        pass


if __name__ == "__main__":
    main()
