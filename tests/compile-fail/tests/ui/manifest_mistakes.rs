// A misspelt point, another agent's name for one, an unknown key and a path that is no point:
// each reported on its own token, all at once.

struct NotAPoint;

hookchain::extension! {
    name: "notes",
    version: "0.2.0",
    points: ["intercept_tool_cal", "PreToolUse", "turn_end"],
    depend_on: ["workflow-guard"],
}

hookchain::extension! {
    name: "journal",
    points: [NotAPoint],
}

fn main() {}
