//! Extensions: tools, slash commands, events and manifests, collected like hooks.
//!
//! Two extensions, each written the way a crate of its own would ship it:
//!
//! - `notes` declares itself with a manifest (`hookchain::extension!`: version, description, the
//!   extension it depends on, the points its hooks may use), gives the model a tool
//!   (`add_note`, its parameters a JSON Schema made from a Rust type), gives the user a slash
//!   command (`/notes`), and announces every note it keeps with an event of its own
//!   (`notes:kept`), emitted from a hook;
//! - `audit` listens to that event, and never touches `notes`' state.
//!
//! A scripted agent then lists the session's tools (as an OpenAI function tool, too), calls
//! `add_note` through the chains — once fine, once with a credential in it, which the built-in
//! `secrets` guard blocks as it blocks the agent's own tools, once misspelt —, and runs `/notes`,
//! `/extensions list` and, with `notes` switched off, `/notes` again. No model and no network.
//!
//! Run it with `cargo run --example extension`.

use hookchain::guards::{BuiltinsExt, Secrets};
use hookchain::points::ToolCall;
use hookchain::prelude::*;
use hookchain::{HooksBuilder, Session, ToolRun, TurnEnd};

/// The `notes` extension: a tool, a command, a guard of its own and an event.
mod notes {
    use hookchain::points::ToolResult;
    use hookchain::schemars::JsonSchema;
    use hookchain::{HookContext, hook_point, register_command, register_hook};
    use serde::Deserialize;

    hookchain::extension! {
        name: "notes",
        version: "0.2.0",
        description: "Keeps notes for the session, and says so on `notes:kept`",
        depends_on: ["audit"],
        points: ["intercept_tool_call", "after_tool_call", "slash_command"],
    }

    hook_point! {
        /// `notes:kept`: a note was kept; observers only.
        pub struct NoteKept: observe("notes:kept") {
            type Value = String;
        }
    }

    /// The arguments of `add_note`.
    #[derive(Debug, Deserialize, JsonSchema)]
    #[schemars(crate = "hookchain::schemars")]
    pub struct AddNote {
        /// The note's text.
        pub text: String,
    }

    /// Keeps a note for the rest of the session.
    #[hookchain::register_tool(extension = "notes")]
    fn add_note(args: AddNote, cx: &HookContext) -> Result<String, String> {
        let text = args.text.trim().to_owned();
        if text.is_empty() {
            return Err("a note needs some text".to_owned());
        }
        let count = cx
            .session_state()
            .update("notes", |notes: &mut Vec<String>| {
                notes.push(text.clone());
                notes.len()
            })
            .unwrap_or(0);
        Ok(format!("kept note #{count}"))
    }

    /// A note the tool kept is announced on `notes:kept`; the event is delivered once this
    /// dispatch is over, before the agent's `call_tool` returns.
    #[register_hook("after_tool_call", extension = "notes")]
    fn announce(result: &ToolResult, cx: &HookContext) {
        if result.tool_name == "add_note" && !result.is_error {
            let text = result.tool_input["text"].as_str().unwrap_or_default();
            cx.emit::<NoteKept>(text.to_owned());
        }
    }

    /// `/notes`: the notes of this session, one per line.
    #[register_command(
        "notes",
        description = "List the notes of this session",
        extension = "notes"
    )]
    fn list_notes(_args: &str, cx: &HookContext) -> String {
        let notes: Vec<String> = cx.session_state().get("notes").unwrap_or_default();
        if notes.is_empty() {
            return "no notes yet".to_owned();
        }
        let lines: Vec<String> = notes
            .iter()
            .enumerate()
            .map(|(i, note)| format!("{}. {note}", i + 1))
            .collect();
        lines.join("\n")
    }
}

/// The `audit` extension: hears what `notes` announces.
mod audit {
    use hookchain::{HookContext, register_hook};

    use super::notes::NoteKept;

    hookchain::extension! {
        name: "audit",
        version: "1.0.0",
        description: "Writes down what the other extensions announce",
        points: [NoteKept],
    }

    /// Counts the notes kept, in its own session state.
    #[register_hook(NoteKept, extension = "audit")]
    fn note_kept(text: &String, cx: &HookContext) {
        let heard = cx
            .session_state()
            .update("audit:heard", |n: &mut u32| {
                *n += 1;
                *n
            })
            .unwrap_or(0);
        println!("  audit: heard notes:kept #{heard}: {text:?}");
    }
}

fn call(turn: &Turn, name: &str, args: Value) -> ToolRun {
    println!("call {name} {args}");
    let run = turn.call_tool(ToolCall::new(name, args));
    match &run.blocked {
        Some(blocked) => println!("  blocked by {}: {}", blocked.hook, blocked.reason),
        None => println!("  -> {}", run.result.tool_response),
    }
    run
}

fn command(session: &Session, line: &str) -> hookchain::CommandReply {
    println!("{line}");
    let reply = session.command(line).expect("a slash command");
    for text in reply.text.lines() {
        println!("  {text}");
    }
    reply
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let hooks = HooksBuilder::new()
        .collected()
        .builtin_commands()
        .builtin(Secrets::default())
        .build()?;
    let session = hooks.session("extension-demo");

    println!("the tools the model is offered:");
    let tools = session.tools();
    for tool in &tools {
        println!("  {} ({}): {}", tool.name, tool.extension, tool.description);
        println!("    as an OpenAI tool: {}", tool.to_openai());
    }
    assert!(tools.iter().any(|t| t.name == "add_note"));

    let turn = session.begin_turn();
    let kept = call(&turn, "add_note", json!({"text": "ship on Friday"}));
    assert!(kept.ran && !kept.result.is_error);
    let leaked = call(
        &turn,
        "add_note",
        json!({"text": "deploy key AKIAZ7VRSQ5TJN2XMPLE"}),
    );
    assert!(
        leaked.blocked.is_some(),
        "the secrets guard guards extension tools too"
    );
    let misspelt = call(&turn, "add_notes", json!({"text": "hi"}));
    assert!(misspelt.result.is_error);
    turn.end(TurnEnd::Normal);

    let notes = command(&session, "/notes");
    assert_eq!(notes.text, "1. ship on Friday");
    let listed = command(&session, "/extensions list");
    assert!(listed.text.contains("0.2.0"), "{}", listed.text);

    hooks.disable_extension("notes")?;
    let off = command(&session, "/notes");
    assert!(off.is_error);
    assert!(!session.tools().iter().any(|t| t.name == "add_note"));
    session.end("done");
    Ok(())
}
