//! The README's quickstart hook reads its state with `get_turn_state(cx.session_id())`. That keeps
//! working whichever registry fires it — the global one or one built with `HooksBuilder` — even
//! when both have a live session with the same id: the id is looked up in the registry of the
//! hook that asks, and in the hook's own turn.

use hookchain::HooksBuilder;
use hookchain::{HookContext, prelude::*};

/// Plan before implement, as in the README.
#[register_hook("intercept_tool_call", priority = 10)]
fn require_plan(call: &ToolCall, cx: &HookContext) -> HookResult<Value> {
    let plan_ok = get_turn_state(cx.session_id())
        .get::<bool>("plan_ok")
        .unwrap_or(false);
    if call.name == "write_file" && !plan_ok {
        return HookResult::block("No valid plan yet");
    }
    HookResult::Pass
}

fn write() -> ToolCall {
    ToolCall::new("write_file", json!({"path": "src/main.rs"}))
}

#[test]
fn get_turn_state_in_a_hook_finds_its_own_registrys_session() {
    let built = HooksBuilder::new()
        .collected_where(|r| r.file.ends_with("state_lookup.rs"))
        .build()
        .unwrap();
    let global = Hooks::global().session("quickstart");
    let own = built.session("quickstart");
    let (global_turn, own_turn) = (global.begin_turn(), own.begin_turn());

    global_turn.state().set("plan_ok", true);
    assert!(!global_turn.intercept_tool_call(write()).is_blocked());
    assert!(
        own_turn.intercept_tool_call(write()).is_blocked(),
        "the builder registry's session has no plan"
    );

    global_turn.state().set("plan_ok", false);
    own_turn.state().set("plan_ok", true);
    assert!(global_turn.intercept_tool_call(write()).is_blocked());
    assert!(!own_turn.intercept_tool_call(write()).is_blocked());

    // A newer turn of the same session does not change what the older turn's hooks see.
    let newer = own.begin_turn();
    assert!(!own_turn.intercept_tool_call(write()).is_blocked());
    assert!(newer.intercept_tool_call(write()).is_blocked());

    for turn in [global_turn, own_turn, newer] {
        turn.end(TurnEnd::Normal);
    }
    global.end("done");
    own.end("done");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn get_turn_state_in_a_hook_works_through_the_async_api_on_any_thread() {
    let run = async {
        let session = Hooks::global().session_async("quickstart-async").await;
        let turn = session.begin_turn();
        turn.state().set("plan_ok", true);
        let tasks: Vec<_> = (0..4)
            .map(|_| {
                let turn = turn.clone();
                tokio::spawn(async move { turn.intercept_tool_call_async(write()).await })
            })
            .collect();
        for task in tasks {
            assert!(!task.await.unwrap().is_blocked());
        }
        turn.end_async(TurnEnd::Normal).await;
        session.end_async("done").await;
    };
    tokio::time::timeout(std::time::Duration::from_secs(20), run)
        .await
        .expect("in time");
}

/// Each thread keeps its own list of the registries' stores for the lookups by id: a registry
/// built after a thread's first lookup is seen by its next one, and a dropped registry is not
/// looked in any more.
#[test]
fn lookups_by_id_see_registries_built_and_dropped_since_the_threads_last_lookup() {
    let id = "state-lookup-generations";
    // The thread's first lookup: no live session has the id (a detached state).
    get_turn_state(id).set("seen", true);
    let first = HooksBuilder::new().build().unwrap();
    let session = first.session(id);
    let turn = session.begin_turn();
    turn.state().set("registry", "first");
    assert_eq!(
        get_turn_state(id).get::<String>("registry").as_deref(),
        Some("first"),
        "a registry built after the thread's last lookup"
    );
    turn.end(TurnEnd::Normal);
    session.end("done");
    drop((turn, session, first));

    let second = HooksBuilder::new().build().unwrap();
    let session = second.session(id);
    let turn = session.begin_turn();
    turn.state().set("registry", "second");
    // From this thread, and from a thread that never looked anything up.
    assert_eq!(
        get_turn_state(id).get::<String>("registry").as_deref(),
        Some("second")
    );
    let other = std::thread::spawn(move || get_turn_state(id).get::<String>("registry"));
    assert_eq!(other.join().unwrap().as_deref(), Some("second"));
    turn.end(TurnEnd::Normal);
    session.end("done");
}
