"""hookchain's runner of Hermes' Python hooks.

One interpreter per Hermes gateway hook directory (HOOK.yaml + handler.py) or Python plugin
(a package with register(ctx)), serving hookchain's `process` protocol: one JSON request per
line on stdin, {"id": N, "payload": {...}}, with the payload in Hermes' shell-hook form
(hook_event_name, tool_name, tool_input, session_id, extra, ...), and one answer per line on
stdout: {"id": N, "output": ...} with the decision in Hermes' form, or {"id": N, "error": "..."}
naming the file and line Python reports when the hook's code raised.

What it runs is told by its environment (set by hookchain, pinned by consent):
HOOKCHAIN_PYTHON_DIR (the directory), HOOKCHAIN_PYTHON_KIND (gateway or plugin),
HOOKCHAIN_HERMES_NAME (the hook's or plugin's name) and, for a gateway hook,
HOOKCHAIN_HERMES_EVENTS (the events of its HOOK.yaml, as JSON).

The hook's code may print: its stdout goes to stderr, which hookchain logs, so that nothing it
prints is taken for an answer.
"""

import asyncio
import importlib.util
import inspect
import json
import os
import sys
import traceback
import types

# The protocol keeps the real stdout; everything else written to fd 1 goes to stderr.
PROTOCOL = os.fdopen(os.dup(1), "w", encoding="utf-8", buffering=1)
os.dup2(2, 1)
sys.stdout = sys.stderr

LOOP = asyncio.new_event_loop()
asyncio.set_event_loop(LOOP)

DIRECTORY = os.environ.get("HOOKCHAIN_PYTHON_DIR", ".")
KIND = os.environ.get("HOOKCHAIN_PYTHON_KIND", "gateway")
NAME = os.environ.get("HOOKCHAIN_HERMES_NAME", os.path.basename(DIRECTORY))

# How many turns the runner remembers (the message of agent:start for agent:end, the
# iteration count of agent:step).
REMEMBERED_TURNS = 256

# Hermes truncates agent:start's message and agent:end's response to 500 characters.
GATEWAY_TEXT_LIMIT = 500


class LoadError(Exception):
    """The hook's files cannot be loaded: every firing fails with this message."""


def where(error):
    """`FILE line N: Type: message`, with the file and line Python reports."""
    if isinstance(error, SyntaxError) and error.filename:
        place = "%s line %s" % (error.filename, error.lineno)
    else:
        frames = traceback.extract_tb(error.__traceback__)
        place = "%s line %s" % (frames[-1].filename, frames[-1].lineno) if frames else NAME
    return "%s: %s: %s" % (place, type(error).__name__, error)


def call(function, *args, **kwargs):
    """Calls a handler or callback, awaiting it when it is `async def`."""
    result = function(*args, **kwargs)
    if inspect.isawaitable(result):
        result = LOOP.run_until_complete(result)
    return result


def field(payload, name, default=None):
    """A field the agent gave (top level), else one of the event's arguments (`extra`)."""
    value = payload.get(name)
    if value is None:
        value = (payload.get("extra") or {}).get(name)
    return default if value is None else value


class Turns:
    """What the runner keeps per turn, for its last REMEMBERED_TURNS turns."""

    def __init__(self):
        self.values = {}

    def key(self, payload):
        return (payload.get("session_id"), payload.get("turn"))

    def get(self, payload, default=None):
        return self.values.get(self.key(payload), default)

    def set(self, payload, value):
        self.values[self.key(payload)] = value
        while len(self.values) > REMEMBERED_TURNS:
            self.values.pop(next(iter(self.values)))


MESSAGES = Turns()
STEPS = Turns()


def load_module(module_name, path, package_dir=None):
    spec = importlib.util.spec_from_file_location(
        module_name,
        path,
        submodule_search_locations=[package_dir] if package_dir else None,
    )
    if spec is None or spec.loader is None:
        raise LoadError("%s: cannot be loaded as a Python module" % path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[module_name] = module
    try:
        spec.loader.exec_module(module)
    except BaseException:
        sys.modules.pop(module_name, None)
        raise
    return module


def module_name(prefix, name):
    return prefix + "".join(c if c.isalnum() else "_" for c in name)


# ---------------------------------------------------------------------------------------------
# Gateway hooks: handle(event_type, context)


class Gateway:
    def __init__(self):
        self.events = json.loads(os.environ.get("HOOKCHAIN_HERMES_EVENTS", "[]"))
        path = os.path.join(DIRECTORY, "handler.py")
        module = load_module(module_name("hermes_hook_", NAME), path)
        self.handle = getattr(module, "handle", None)
        if not callable(self.handle):
            raise LoadError(
                "%s: no `handle` function: Hermes calls `handle(event_type, context)`" % path
            )

    def subscribed(self, event_type):
        """Hermes' rule: the exact event, or its `base:*` wildcard."""
        if event_type in self.events:
            return True
        return ":" in event_type and event_type.split(":")[0] + ":*" in self.events

    def context(self, event, payload):
        """The event's context, with the keys Hermes' Event Hooks docs list."""
        extra = payload.get("extra") or {}
        who = {
            "platform": field(payload, "platform", ""),
            "user_id": field(payload, "user_id", ""),
        }
        session_id = payload.get("session_id", "")
        session_key = field(payload, "session_key", session_id)
        if event == "session:start":
            return dict(who, session_id=session_id, session_key=session_key)
        if event in ("session:end", "session:reset"):
            return dict(who, session_key=session_key)
        chat = {
            "chat_id": field(payload, "chat_id", ""),
            "thread_id": field(payload, "thread_id", ""),
            "chat_type": field(payload, "chat_type", ""),
            "session_id": session_id,
        }
        if event == "agent:start":
            return dict(who, **chat, message=MESSAGES.get(payload, ""))
        if event == "agent:step":
            calls = extra.get("tool_calls") or []
            return dict(
                who,
                session_id=session_id,
                iteration=STEPS.get(payload, 0),
                tool_names=[c.get("name") for c in calls if isinstance(c, dict)],
            )
        if event == "agent:end":
            response = str(extra.get("response") or "")[:GATEWAY_TEXT_LIMIT]
            return dict(who, **chat, message=MESSAGES.get(payload, ""), response=response)
        if event.startswith("command:"):
            return dict(who, command=extra.get("command", ""), args=extra.get("args", ""))
        return dict(who, session_id=session_id)

    def fire(self, payload):
        event = payload.get("hook_event_name", "")
        extra = payload.get("extra") or {}
        if event == "agent:start":
            MESSAGES.set(payload, str(extra.get("prompt") or "")[:GATEWAY_TEXT_LIMIT])
        elif event == "agent:step":
            STEPS.set(payload, STEPS.get(payload, 0) + 1)
        elif event == "command:*":
            event = "command:" + str(extra.get("command", ""))
        if not self.subscribed(event):
            return None
        call(self.handle, event, self.context(event, payload))
        # Hermes discards what a gateway handler returns: it never blocks.
        return None


# ---------------------------------------------------------------------------------------------
# Plugin hooks: register(ctx) and ctx.register_hook(name, callback)


class PluginContext:
    """The `ctx` given to `register(ctx)`: it records `register_hook`; the plugin's other
    registrations (tools, commands, ...) are not hookchain's to run and are noted only."""

    def __init__(self):
        self.hooks = {}
        self.ignored = []

    def register_hook(self, hook_name, callback):
        self.hooks.setdefault(hook_name, []).append(callback)

    def __getattr__(self, attribute):
        if attribute.startswith("__"):
            raise AttributeError(attribute)

        def noted(*args, **kwargs):
            self.ignored.append(attribute)

        return noted


class Plugin:
    def __init__(self):
        package = "hermes_plugins"
        if package not in sys.modules:
            parent = types.ModuleType(package)
            parent.__path__ = []
            sys.modules[package] = parent
        path = os.path.join(DIRECTORY, "__init__.py")
        module = load_module(module_name(package + ".", NAME), path, DIRECTORY)
        register = getattr(module, "register", None)
        if not callable(register):
            raise LoadError("%s: no `register(ctx)` function" % path)
        self.ctx = PluginContext()
        call(register, self.ctx)
        if self.ctx.ignored:
            print(
                "hookchain: plugin %s also calls %s, which hookchain does not load"
                % (NAME, ", ".join(sorted(set(self.ctx.ignored)))),
                file=sys.stderr,
            )

    def kwargs(self, event, payload):
        """The keyword arguments Hermes passes to the event's callbacks."""
        extra = payload.get("extra") or {}
        session_id = payload.get("session_id", "")
        task_id = extra.get("task_id", session_id)
        llm = {
            "model": field(payload, "model", ""),
            "platform": field(payload, "platform", ""),
        }
        if event == "pre_tool_call":
            return {
                "tool_name": payload.get("tool_name"),
                "args": payload.get("tool_input") or {},
                "task_id": task_id,
                "session_id": session_id,
                "tool_call_id": extra.get("tool_call_id", ""),
            }
        if event == "post_tool_call":
            kwargs = {
                "tool_name": payload.get("tool_name"),
                "args": payload.get("tool_input") or {},
                "result": extra.get("result", ""),
                "task_id": task_id,
                "session_id": session_id,
                "tool_call_id": extra.get("tool_call_id", ""),
            }
            duration = field(payload, "duration_ms")
            if duration is not None:
                kwargs["duration_ms"] = duration
            return kwargs
        if event == "pre_llm_call":
            message = str(extra.get("prompt") or "")
            MESSAGES.set(payload, message)
            return dict(
                llm,
                session_id=session_id,
                task_id=task_id,
                user_message=message,
                conversation_history=field(payload, "conversation_history", []),
                is_first_turn=payload.get("turn") == 1,
                sender_id=field(payload, "user_id", ""),
            )
        if event == "post_llm_call":
            return dict(
                llm,
                session_id=session_id,
                task_id=task_id,
                user_message=MESSAGES.get(payload, ""),
                assistant_response=str(extra.get("response") or ""),
                conversation_history=field(payload, "conversation_history", []),
            )
        if event == "on_session_start":
            return dict(llm, session_id=session_id)
        if event == "on_session_end":
            reason = str(extra.get("reason") or "")
            return dict(
                llm,
                session_id=session_id,
                task_id=task_id,
                reason=reason,
                completed=reason in ("", "exit", "normal", "completed"),
                interrupted=reason in ("canceled", "cancelled", "interrupted"),
            )
        if event in ("on_session_finalize", "on_session_reset"):
            return {
                "session_id": session_id,
                "platform": llm["platform"],
                "reason": field(payload, "reason", "reset"),
                "old_session_id": extra.get("old_session_id", ""),
                "new_session_id": extra.get("new_session_id", ""),
            }
        if event == "subagent_stop":
            kwargs = {
                "parent_session_id": extra.get("parent_session_id", session_id),
                "child_session_id": extra.get("child_session_id", ""),
                "child_role": field(payload, "child_role"),
                "child_summary": field(payload, "child_summary"),
                "child_status": field(payload, "child_status", "completed"),
            }
            duration = field(payload, "duration_ms")
            if duration is not None:
                kwargs["duration_ms"] = duration
            return kwargs
        return dict(extra, session_id=session_id)

    def fire(self, payload):
        event = payload.get("hook_event_name", "")
        callbacks = self.ctx.hooks.get(event, [])
        kwargs = self.kwargs(event, payload)
        results, errors = [], []
        for callback in callbacks:
            try:
                results.append(call(callback, **kwargs))
            except Exception as error:  # logged and skipped, as Hermes does
                errors.append(where(error))
        decision = self.decide(event, results, kwargs)
        if errors:
            message = "; ".join(errors)
            if decision is None:
                raise HookFailed(message)
            decision["systemMessage"] = message
        return decision

    @staticmethod
    def decide(event, results, kwargs):
        """The callbacks' answers combined as Hermes combines them."""
        if event == "pre_tool_call":
            blocks, approvals, merged = [], [], None
            for result in results:
                if not isinstance(result, dict):
                    continue
                action, message = result.get("action"), result.get("message")
                if action == "block" and isinstance(message, str) and message.strip():
                    blocks.append(message)
                elif action == "approve":
                    approvals.append(message or "a plugin asks for approval")
                elif action == "modify" and isinstance(result.get("args"), dict):
                    merged = dict(merged or {}, **result["args"])
            if blocks:
                return {"action": "block", "message": blocks[0]}
            if approvals:
                return {
                    "action": "block",
                    "message": "%s (the plugin asks for a human approval, which hookchain "
                    "cannot ask for: blocked, as Hermes blocks when approval is denied)"
                    % approvals[0],
                }
            if merged is not None:
                return {"action": "modify", "args": merged}
            return None
        if event == "pre_llm_call":
            texts = []
            for result in results:
                if isinstance(result, dict):
                    result = result.get("context")
                if isinstance(result, str) and result.strip():
                    texts.append(result)
            if not texts:
                return None
            # Into the user message, never the system prompt, as Hermes puts it.
            message = kwargs.get("user_message", "")
            return {"action": "modify", "text": message + "\n\n" + "\n\n".join(texts)}
        return None


class HookFailed(Exception):
    """Every callback that ran failed: the firing fails with their messages."""


# ---------------------------------------------------------------------------------------------


def answer(request_id, **fields):
    PROTOCOL.write(json.dumps(dict(fields, id=request_id)) + "\n")
    PROTOCOL.flush()


def main():
    try:
        hook = Plugin() if KIND == "plugin" else Gateway()
        load_error = None
    except LoadError as error:
        hook, load_error = None, str(error)
    except BaseException as error:  # an import error: every firing says where it is
        hook, load_error = None, "cannot load %s: %s" % (NAME, where(error))
    for line in sys.stdin:
        if not line.strip():
            continue
        try:
            request = json.loads(line)
            request_id = request["id"]
        except (ValueError, KeyError, TypeError):
            print("hookchain runner: not a request: %r" % line[:200], file=sys.stderr)
            continue
        if hook is None:
            answer(request_id, error=load_error)
            continue
        try:
            output = hook.fire(request.get("payload") or {})
        except HookFailed as failure:
            answer(request_id, error=str(failure))
            continue
        except Exception as error:
            answer(request_id, error=where(error))
            continue
        answer(request_id, output=output)


if __name__ == "__main__":
    main()
