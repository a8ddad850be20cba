# Breakroom's Python runtime driver (stdlib only). Shipped inside the server and run with
# `python3 -u -c`. Requests arrive on stdin as JSON lines; user code prints to the real stdout
# and stderr; when a request is done the driver writes b"\0BRK<token>\0" on both and
# "<token> <json>\n" on fd 63. The namespace is __main__'s, so it persists between requests.


def _breakroom_driver():
    import ast
    import builtins
    import json
    import linecache
    import os
    import signal
    import sys
    import traceback
    import types

    status_fd = 63
    os.set_inheritable(status_fd, False)
    requests = os.fdopen(os.dup(0), "rb")
    # User code and its subprocesses read an empty stdin, never our requests.
    devnull = os.open(os.devnull, os.O_RDONLY)
    os.dup2(devnull, 0)
    os.close(devnull)
    sys.argv = [""]
    ns = sys.modules["__main__"].__dict__
    for name in list(ns):
        if name not in ("__name__", "__doc__", "__builtins__", "__spec__", "__loader__", "__package__"):
            del ns[name]
    running = [False]
    cells = [0]

    def on_sigint(signum, frame):
        # Only a running command is interrupted; between commands SIGINT is a late one.
        if running[0]:
            raise KeyboardInterrupt

    signal.signal(signal.SIGINT, on_sigint)

    def run(code):
        cells[0] += 1
        filename = "<cell %d>" % cells[0]
        linecache.cache[filename] = (len(code), None, code.splitlines(True), filename)
        try:
            running[0] = True
            try:
                tree = ast.parse(code, filename, "exec")
                last = None
                if tree.body and isinstance(tree.body[-1], ast.Expr):
                    last = tree.body.pop()
                exec(compile(tree, filename, "exec"), ns)
                if last is not None:
                    # As a REPL does: the value of a final expression is shown (None is not).
                    exec(compile(ast.Interactive(body=[last]), filename, "single"), ns)
            finally:
                running[0] = False
            return 0, False
        except SystemExit:
            raise
        except BaseException as e:
            running[0] = False
            tb = e.__traceback__
            # The driver's own frames are not the user's business.
            while tb is not None and tb.tb_frame.f_code.co_filename != filename:
                tb = tb.tb_next
            sys.stderr.write("".join(traceback.format_exception(type(e), e, tb)))
            return (130 if isinstance(e, KeyboardInterrupt) else 1), isinstance(e, KeyboardInterrupt)

    def state():
        imports, functions, variables = [], [], {}
        for name, value in list(ns.items()):
            if name.startswith("__") or name == "_":
                continue
            if isinstance(value, types.ModuleType):
                imports.append({"name": name, "module": value.__name__})
                continue
            module = getattr(value, "__module__", None) if isinstance(value, (type, types.FunctionType, types.BuiltinFunctionType)) else None
            if module and module != "__main__":
                imports.append({"name": name, "module": module})
            elif module == "__main__":
                functions.append(name)
            else:
                variables[name] = type(value).__name__
        return {"working_dir": os.getcwd(), "imports": imports, "functions": functions, "variables": variables}

    def done(token, answer):
        for stream in (sys.stdout, sys.stderr):
            try:
                stream.flush()
            except Exception:
                pass
        marker = b"\0BRK" + token.encode() + b"\0"
        os.write(1, marker)
        os.write(2, marker)
        line = (token + " " + json.dumps(answer) + "\n").encode()
        while line:
            line = line[os.write(status_fd, line):]

    while True:
        raw = requests.readline()
        if not raw:
            return
        try:
            request = json.loads(raw)
            token = str(request["token"])
        except Exception:
            continue
        op = request.get("op")
        if op == "exec":
            code, interrupted = run(str(request.get("code", "")))
            done(token, {"exit_code": code, "interrupted": interrupted})
        elif op == "state":
            done(token, {"exit_code": 0, "state": state()})
        elif op == "exit":
            return
        else:
            done(token, {"exit_code": 0})


# Its own globals: a user's `len = 5` or `del json` in __main__ must not reach the driver.
import builtins as _b, types as _t  # noqa: E401

_t.FunctionType(_breakroom_driver.__code__, {"__builtins__": _b})()
