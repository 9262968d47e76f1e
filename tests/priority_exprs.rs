//! `priority = ` takes any constant `i32` expression, and the chain runs in the order those
//! expressions give.
//!
//! This file is one test program: the hooks below are all the hooks of the `priority_probe`
//! chain in its `Hooks::global()`. Each one appends its name to the value, so a dispatch returns
//! the chain's order.

use hookchain::prelude::*;

hookchain::hook_point! {
    /// A point of this file's own; each hook's rewrite is its name, appended to the value.
    pub struct Probe: transform("priority_probe") {
        type Value = Vec<&'static str>;
        type Rewrite = &'static str;
        fn apply(order, name) { order.push(name); }
    }
}

const GUARD: i32 = 10;

mod prio {
    pub const LATE: i32 = 50;

    pub mod nested {
        pub const EARLY: i32 = -40;
    }
}

#[register_hook(Probe, priority = GUARD)]
fn constant(_: &Vec<&'static str>) -> HookResult<&'static str> {
    HookResult::Rewrite("constant")
}

#[register_hook(Probe, priority = -3)]
fn negative(_: &Vec<&'static str>) -> HookResult<&'static str> {
    HookResult::Rewrite("negative")
}

#[register_hook(Probe, priority = GUARD + 1)]
fn sum(_: &Vec<&'static str>) -> HookResult<&'static str> {
    HookResult::Rewrite("sum")
}

#[register_hook(Probe, priority = crate::prio::LATE)]
fn crate_path(_: &Vec<&'static str>) -> HookResult<&'static str> {
    HookResult::Rewrite("crate_path")
}

#[register_hook(Probe, priority = prio::nested::EARLY)]
fn relative_path(_: &Vec<&'static str>) -> HookResult<&'static str> {
    HookResult::Rewrite("relative_path")
}

#[register_hook(Probe, priority = -(prio::LATE * 2))]
fn negated_product(_: &Vec<&'static str>) -> HookResult<&'static str> {
    HookResult::Rewrite("negated_product")
}

#[register_hook(Probe, priority = i32::MAX - 1)]
fn associated_const(_: &Vec<&'static str>) -> HookResult<&'static str> {
    HookResult::Rewrite("associated_const")
}

#[register_hook(Probe)]
fn default_priority(_: &Vec<&'static str>) -> HookResult<&'static str> {
    HookResult::Rewrite("default_priority")
}

/// Declares a probe hook with the priority it is given, as an `$e:expr` fragment.
macro_rules! probe_hook {
    ($name:ident, $priority:expr) => {
        #[register_hook(Probe, priority = $priority)]
        fn $name(_: &Vec<&'static str>) -> HookResult<&'static str> {
            HookResult::Rewrite(stringify!($name))
        }
    };
}

probe_hook!(from_macro, GUARD * 3);
probe_hook!(from_macro_literal, 7);
probe_hook!(from_macro_negative, -7);

/// Every probe hook, in the order its priority puts it: (name, priority).
const EXPECTED: [(&str, i32); 11] = [
    ("negated_product", -100),
    ("relative_path", -40),
    ("from_macro_negative", -7),
    ("negative", -3),
    ("default_priority", 0),
    ("from_macro_literal", 7),
    ("constant", 10),
    ("sum", 11),
    ("from_macro", 30),
    ("crate_path", 50),
    ("associated_const", i32::MAX - 1),
];

fn full_name(hook: &str) -> String {
    format!("priority_exprs::{hook}")
}

#[test]
fn the_records_hold_the_priorities() {
    let mut records: Vec<(String, i32)> = hookchain::__private::registrations()
        .filter(|r| r.point == "priority_probe")
        .map(|r| (r.name.to_owned(), r.priority))
        .collect();
    records.sort_by_key(|(_, priority)| *priority);
    let expected: Vec<(String, i32)> = EXPECTED
        .iter()
        .map(|(hook, priority)| (full_name(hook), *priority))
        .collect();
    assert_eq!(records, expected);
}

#[test]
fn the_chain_is_ordered_by_them() {
    let chain: Vec<(String, i32)> = Hooks::global()
        .chain_of("priority_probe")
        .into_iter()
        .map(|h| (h.name.to_string(), h.priority))
        .collect();
    let expected: Vec<(String, i32)> = EXPECTED
        .iter()
        .map(|(hook, priority)| (full_name(hook), *priority))
        .collect();
    assert_eq!(chain, expected);
}

#[test]
fn a_dispatch_runs_in_that_order() {
    let outcome = Hooks::global().dispatch::<Probe>(Vec::new());
    let Flow::Continue(order) = outcome.flow else {
        panic!("no probe hook blocks");
    };
    let expected: Vec<&str> = EXPECTED.iter().map(|(hook, _)| *hook).collect();
    assert_eq!(order, expected);
}

#[test]
fn describe_lists_them() {
    let text = Hooks::global().describe().to_string();
    let listed: Vec<(String, i32)> = text
        .lines()
        .filter(|line| line.starts_with("priority_probe "))
        .map(|line| {
            let mut columns = line.split_whitespace().skip(1);
            let priority = columns.next().unwrap().parse().unwrap();
            let name = columns.next().unwrap().to_owned();
            (name, priority)
        })
        .collect();
    let expected: Vec<(String, i32)> = EXPECTED
        .iter()
        .map(|(hook, priority)| (full_name(hook), *priority))
        .collect();
    assert_eq!(listed, expected, "{text}");
}
