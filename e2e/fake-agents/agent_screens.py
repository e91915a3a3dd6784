"""What each fake agent draws: its idle composer, working spinner and permission dialog.

The shapes follow the detection fixtures in `manifests/fixtures/<agent>/` (which record what the
real CLIs show), so a fake's screen is recognised by the same manifest rule as the real screen:
claude's boxed `❯` composer and `✻ Pondering… (3s · esc to interrupt)` line, codex's `•
Working (… esc to interrupt)` line and `Press enter to confirm or esc to cancel` approval, and so
on. Window titles are set only where the real agent sets them (claude, codex, gemini).

This module only builds lines of text; `fake_agent.py` owns the terminal and the turn machine.
"""

BRAILLE = "⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏"
COMMAND = "rm -rf build"


def box(body, width, corners="╭╮╰╯", side="│", flat="─"):
    """A box around `body` lines, `width` columns wide overall."""
    inner = max(width - 4, 10)
    top = corners[0] + flat * (inner + 2) + corners[1]
    bottom = corners[2] + flat * (inner + 2) + corners[3]
    return [top] + [f"{side} {line[:inner].ljust(inner)} {side}" for line in body] + [bottom]


def spread(left, right, width):
    """`left` and `right` on one line, `right` flush with the last usable column."""
    gap = max(width - 1 - len(left) - len(right), 2)
    return left + " " * gap + right


class Screens:
    """Defaults shared by every agent; subclasses override what differs."""

    name = "agent"
    alt_screen = False
    extra_modes = ()
    has_dialog = True
    has_trust = False
    approve_keys = ("enter", "y", "1")
    reject_keys = ("esc", "n")

    def starting(self, view):
        return []

    def user_prompt(self, text):
        return [f"> {text}", ""]

    def reply(self, prompt, approved):
        if approved:
            return [f"Ran {COMMAND}; the build directory is gone.", ""]
        return ["Done. I looked at it and everything is in order.", ""]

    def rejected(self):
        return ["Okay, I will not run that command.", ""]

    def interrupted(self):
        return ["Interrupted.", ""]

    def title(self, state, view):
        return None

    def width(self, view):
        return min(view.cols - 1, 80)


class Claude(Screens):
    name = "claude"
    approve_keys = ("enter", "y", "1")
    reject_keys = ("esc", "n", "3")
    GLYPHS = "·✢✶✻✽"

    def banner(self, view):
        return box(
            ["✻ Welcome to Claude Code!", "", "  /help for help, /status for your current setup", "",
             "  cwd: ~/proj"],
            min(self.width(view), 58),
        ) + [""]

    def user_prompt(self, text):
        return [f"> {text}", ""]

    def reply(self, prompt, approved):
        if "multi-line-reply" in prompt.lower():
            # A turn with a tool call, a multi-line answer and the "worked for" status line.
            return ["⏺ Read(src/net.rs)", "  ⎿  Read 88 lines", "", "⏺ Reviewed the retry loop:",
                    "  - backoff never resets after a success", "  - the timeout is read on every call",
                    "", "✻ Worked for 1s", ""]
        text = f"Ran {COMMAND}; the build directory is gone." if approved else "Done. Everything is in order."
        return [f"⏺ {text}", ""]

    def rejected(self):
        return ["  ⎿  User rejected the command", ""]

    def interrupted(self):
        return ["  ⎿  Interrupted by user", ""]

    def composer(self, view):
        rule = "─" * (self.width(view) - 1)
        return [rule, f"❯ {view.composer}", rule, "  ? for shortcuts"]

    def history(self, view):
        return self.banner(view) + view.history

    def idle(self, view):
        return self.history(view) + self.composer(view)

    def working(self, view):
        glyph = self.GLYPHS[view.frame % len(self.GLYPHS)]
        status = f"{glyph} Pondering… ({view.elapsed}s · esc to interrupt)"
        return self.history(view) + [status, ""] + self.composer(view)

    def blocked(self, view):
        rule = "─" * (self.width(view) - 1)
        return self.history(view) + [
            rule,
            " Bash command",
            "",
            f"   {COMMAND}",
            "   Remove the build directory",
            "",
            " Do you want to proceed?",
            " ❯ 1. Yes",
            "   2. Yes, and don't ask again for rm commands in ~/proj",
            "   3. No, and tell Claude what to do differently (esc)",
            "",
            " Esc to cancel · Tab to amend",
        ]

    has_trust = True

    def trust(self, view):
        return [
            "Do you trust the files in this folder?",
            "",
            "~/proj",
            "",
            "Claude Code may read, write, or execute files contained in this directory.",
            "This can pose security risks, so only use files from trusted sources.",
            "",
            "❯ 1. Yes, proceed",
            "  2. No, exit",
            "",
            "Enter to confirm · Esc to exit",
        ]

    def title(self, state, view):
        # Claude spins a braille cell in the title while a turn runs and shows ✳ otherwise.
        if state == "working":
            return "⠂⠐"[view.frame % 2] + " Claude Code"
        return "✳ Claude Code"


class Codex(Screens):
    name = "codex"
    approve_keys = ("enter", "y")
    reject_keys = ("esc", "n")

    def banner(self, view):
        return box(
            [">_ OpenAI Codex (v0.46.0)", "", "model:     gpt-5-codex   /model to change",
             "directory: ~/proj"],
            min(self.width(view), 50),
        ) + ["", "  To get started, describe a task.", ""]

    def user_prompt(self, text):
        return [f"› {text}", ""]

    def reply(self, prompt, approved):
        if approved:
            return [f"• Ran {COMMAND}", "  └ (no output)", ""]
        return ["• Done. Everything is in order.", ""]

    def rejected(self):
        return ["■ The command was not approved.", ""]

    def interrupted(self):
        return ["■ Conversation interrupted - tell the model what to do differently.", ""]

    def composer(self, view):
        text = view.composer or "Ask Codex to do anything"
        return [f"› {text}", "", "  100% context left · ? for shortcuts"]

    def idle(self, view):
        return self.banner(view) + view.history + self.composer(view)

    def working(self, view):
        status = f"• Working ({view.elapsed}s • esc to interrupt)"
        return self.banner(view) + view.history + [status, ""] + self.composer(view)

    def blocked(self, view):
        return self.banner(view) + view.history + [
            "• I need to delete the build directory.",
            "",
            "  Would you like to run the following command?",
            "",
            f"  $ {COMMAND}",
            "",
            "› 1. Yes, proceed (y)",
            "  2. Yes, and don't ask again for this command (a)",
            "  3. No, and tell Codex what to do differently (esc)",
            "",
            "  Press enter to confirm or esc to cancel",
        ]

    def title(self, state, view):
        if state == "working":
            return BRAILLE[view.frame % len(BRAILLE)] + " proj"
        if state == "blocked":
            return "Action Required - proj"
        return "proj"


class Gemini(Screens):
    name = "gemini"
    approve_keys = ("enter", "y", "1")
    reject_keys = ("esc", "n", "3")

    def banner(self, view):
        return [
            " ███            █████████  ██████████ ██████   ██████",
            "░░░███         ███░░░░░███░░███░░░░░█░░██████ ██████",
            "",
            "Tips for getting started:",
            "1. Ask questions, edit files, or run commands.",
            "2. Be specific for the best results.",
            "3. /help for more information.",
            "",
        ]

    def user_prompt(self, text):
        return [f"> {text}", ""]

    def reply(self, prompt, approved):
        text = f"Ran {COMMAND}; the build directory is gone." if approved else "Done. Everything is in order."
        return [f"✦ {text}", ""]

    def rejected(self):
        return ["✦ Understood, I will not run it.", ""]

    def interrupted(self):
        return ["ℹ Request cancelled.", ""]

    def composer(self, view):
        text = view.composer or "Type your message or @path/to/file"
        width = self.width(view)
        footer = spread("~/proj (main*)", "gemini-2.5-pro (97% context left)", width)
        return box([f">   {text}"], width) + [footer]

    def idle(self, view):
        return self.banner(view) + view.history + self.composer(view)

    def working(self, view):
        spinner = BRAILLE[view.frame % len(BRAILLE)]
        status = f"{spinner} Thinking about the request (esc to cancel, {view.elapsed}s)"
        return self.banner(view) + view.history + [status, ""] + self.composer(view)

    def blocked(self, view):
        spinner = BRAILLE[view.frame % len(BRAILLE)]
        dialog = box(
            [f"?  Shell {COMMAND} [current working directory ~/proj]", "", COMMAND, "",
             "Allow execution of: 'rm'?", "", "● 1. Yes, allow once", "  2. Yes, allow always ...",
             "  3. No, suggest changes (esc)", ""],
            self.width(view),
        )
        return self.banner(view) + view.history + dialog + ["", f"{spinner} Waiting for user confirmation..."]

    def title(self, state, view):
        # Gemini's dynamic window title (its manifest has no title rules; this is for fidelity).
        if state == "working":
            return "✦  Working… (proj)"
        if state == "blocked":
            return "✋  Action Required (proj)"
        return "◇  Ready (proj)"


class Opencode(Screens):
    """Full-screen (alternate screen): the composer and footer sit on the bottom rows."""

    name = "opencode"
    alt_screen = True
    approve_keys = ("enter",)
    reject_keys = ("esc",)
    MODEL = "┃  Build  Claude Sonnet 4.5 Anthropic"

    def reply(self, prompt, approved):
        text = f"✓ Ran {COMMAND}" if approved else "Done. Everything is in order."
        return [text, ""]

    def rejected(self):
        return ["✗ Permission rejected", ""]

    def page(self, view, top, bottom):
        room = max(view.rows - len(bottom), 0)
        top = top[-room:] if room else []
        return top + [""] * (room - len(top)) + bottom

    def composer(self, view, footer):
        width = self.width(view)
        return [f"┃  {view.composer}", "┃", self.MODEL, "╹" + "▀" * (width - 2), footer]

    def idle(self, view):
        footer = spread("~/proj:main", "ctrl+p commands", self.width(view))
        return self.page(view, view.history, self.composer(view, footer))

    def working(self, view):
        cells = ["⬝"] * 8
        for i in range(4):
            cells[(view.frame + i) % 8] = "■"
        footer = spread("".join(cells) + "  esc interrupt", "ctrl+p commands", self.width(view))
        return self.page(view, view.history, self.composer(view, footer))

    def blocked(self, view):
        dialog = [
            "△ Permission required",
            f"  $ {COMMAND}",
            "",
            "  Allow once    Allow always    Reject",
            "",
            spread("", "⇆ select  enter confirm", self.width(view)),
        ]
        return self.page(view, view.history, dialog)


class Cursor(Screens):
    name = "cursor"
    approve_keys = ("enter", "y")
    reject_keys = ("esc", "n")

    def header(self):
        return ["Cursor Agent", "~/proj · main", ""]

    def reply(self, prompt, approved):
        if approved:
            return [f"⬢ Ran {COMMAND}", "", "Removed the build directory.", ""]
        return ["Done. Everything is in order.", ""]

    def composer(self, view):
        text = view.composer or "Add a follow-up"
        return box([f"→ {text}"], self.width(view), corners="┌┐└┘") + [
            "  Claude 4.5 Sonnet · 18.4% · 0 files edited"
        ]

    def idle(self, view):
        return self.header() + view.history + self.composer(view)

    def working(self, view):
        glyph = "⬡⬢"[view.frame % 2]
        stop = spread("", "ctrl+c to stop", self.width(view))
        return self.header() + view.history + [f"{glyph} Generating..", ""] + self.composer(view) + [stop]

    def blocked(self, view):
        dialog = box(
            [f"$ {COMMAND}  in ~/proj", "", "Run this command?", " → Run (once) (y)",
             "   Add Shell(rm) to allowlist? (tab)", "   Skip (esc or n)"],
            self.width(view),
            corners="┌┐└┘",
        )
        return self.header() + view.history + dialog


class Copilot(Screens):
    name = "copilot"
    # Copilot asks for focus reports; herdr sends it a focus-in before a prompt.
    extra_modes = (1004,)
    approve_keys = ("enter", "y", "1")
    reject_keys = ("esc", "n", "3")
    GLYPHS = "∙◦●◎"

    def reply(self, prompt, approved):
        text = f"Ran {COMMAND}; the build directory is gone." if approved else "Done. Everything is in order."
        return [f"● {text}", ""]

    def rejected(self):
        return ["● The command was not run.", ""]

    def composer(self, view):
        width = self.width(view)
        rule = " " + "─" * (width - 3)
        text = view.composer or "Enter @ to mention files or / for commands"
        return [
            spread(" ~/proj [⎇ main]", "claude-sonnet-4.5 (1x)", width),
            rule,
            f" >  {text}",
            rule,
            " Ctrl+c Exit · Ctrl+r Expand recent",
        ]

    def idle(self, view):
        return view.history + self.composer(view)

    def working(self, view):
        glyph = self.GLYPHS[view.frame % len(self.GLYPHS)]
        return view.history + [f"{glyph} Thinking (Esc to cancel · {view.elapsed}s)", ""] + self.composer(view)

    def blocked(self, view):
        dialog = box(
            ["Run shell command", "", f"$ {COMMAND}", "Remove the build output", "",
             "Do you want to run this command?", "❯ 1. Yes", "  2. Yes, and approve `rm` for the rest of the session",
             "  3. No, and tell Copilot what to do differently (Esc)"],
            self.width(view),
        )
        return view.history + dialog + ["↑↓ to navigate · Enter to select · Esc to cancel"]


class Pi(Screens):
    """Pi has no permission dialogs: `needs-permission` is just another prompt."""

    name = "pi"
    has_dialog = False

    def composer(self, view):
        rule = "─" * min(self.width(view) - 1, 44)
        return [rule, view.composer, rule, "~/proj  claude-sonnet-4.5  12% ctx"]

    def idle(self, view):
        return view.history + self.composer(view)

    def working(self, view):
        spinner = BRAILLE[view.frame % len(BRAILLE)]
        return view.history + [f"{spinner} Working...", ""] + self.composer(view)

    def blocked(self, view):
        return self.working(view)


AGENTS = {cls.name: cls for cls in (Claude, Codex, Gemini, Opencode, Cursor, Copilot, Pi)}
