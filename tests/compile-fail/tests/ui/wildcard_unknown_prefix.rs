use hookchain::{DispatchEvent, HookContext};

#[register_hook("atfer_*")]
fn audit(_ev: &DispatchEvent, _cx: &HookContext) {}

#[register_hook("zzz*")]
fn far_off(_ev: &DispatchEvent) {}

#[register_hook("after_*_call")]
fn star_inside(_ev: &DispatchEvent) {}

use hookchain::register_hook;

fn main() {}
