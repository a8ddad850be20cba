//! The page controls the server renders (`crate::render`) and the pages' handlers act on
//! (`crate::pages`): each is an element with a `data-action` attribute. Both sides name a
//! control by this enum, so renaming one fails to compile instead of leaving a dead button.
//! Built for the browser too: a handful of `&'static str` comparisons, no decoder.

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Control {
    /// A paused card's Open REPL button.
    OpenRepl,
    /// A paused card's Continue button.
    Continue,
    /// A paused card's Skip form (return a value instead of running the call).
    Skip,
    /// A paused card's Raise form (raise an exception instead of running the call).
    Raise,
    /// The global behaviour `<select>`.
    Global,
    /// A by-name breakpoint's before-the-call `<select>`.
    Before,
    /// A by-name breakpoint's after-the-call `<select>`.
    After,
    /// A by-name breakpoint's replacement `<select>`.
    Replacement,
    /// A by-name breakpoint's Remove button.
    Remove,
    /// The form that adds a breakpoint record.
    AddRecord,
    /// A breakpoint record's form (Save).
    SaveRecord,
    /// A breakpoint record's Remove button.
    RemoveRecord,
    /// A process page's Stop button.
    Stop,
    /// An Attach button of `/processes`' local Python processes (`data-arg`: the pid).
    Attach,
    /// The debug page's Step over (F10).
    StepOver,
    /// The debug page's Step into (F11).
    StepInto,
    /// The debug page's Step out (Shift+F11).
    StepOut,
    /// The debug page's Step back (to the checkpoint before the pause; checkpoints on).
    StepBack,
    /// A frame of the debug page's stack (`data-arg`: its index).
    SelectFrame,
    /// A line number of the debug page's source (`data-arg`: the line).
    ToggleLine,
    /// A timeline checkpoint's Rewind form.
    Rewind,
    /// A timeline checkpoint's Branch form (the new branch's name, if given).
    Branch,
    /// A timeline branch's Switch form.
    SwitchBranch,
}

impl Control {
    pub const ALL: [Control; 23] = [
        Control::OpenRepl,
        Control::Continue,
        Control::Skip,
        Control::Raise,
        Control::Global,
        Control::Before,
        Control::After,
        Control::Replacement,
        Control::Remove,
        Control::AddRecord,
        Control::SaveRecord,
        Control::RemoveRecord,
        Control::Stop,
        Control::Attach,
        Control::StepOver,
        Control::StepInto,
        Control::StepOut,
        Control::StepBack,
        Control::SelectFrame,
        Control::ToggleLine,
        Control::Rewind,
        Control::Branch,
        Control::SwitchBranch,
    ];

    /// The `data-action` value.
    pub const fn as_str(self) -> &'static str {
        match self {
            Control::OpenRepl => "open-repl",
            Control::Continue => "continue",
            Control::Skip => "skip",
            Control::Raise => "raise",
            Control::Global => "global",
            Control::Before => "before",
            Control::After => "after",
            Control::Replacement => "replacement",
            Control::Remove => "remove",
            Control::AddRecord => "add-record",
            Control::SaveRecord => "save-record",
            Control::RemoveRecord => "remove-record",
            Control::Stop => "stop",
            Control::Attach => "attach",
            Control::StepOver => "step-over",
            Control::StepInto => "step-into",
            Control::StepOut => "step-out",
            Control::StepBack => "step-back",
            Control::SelectFrame => "select-frame",
            Control::ToggleLine => "toggle-line",
            Control::Rewind => "rewind",
            Control::Branch => "branch",
            Control::SwitchBranch => "switch-branch",
        }
    }

    /// The control a `data-action` value names.
    pub fn parse(action: &str) -> Option<Control> {
        Control::ALL.into_iter().find(|c| c.as_str() == action)
    }
}

/// The CSS selector of a process page's Stop button (`closest` takes a selector).
pub const STOP_SELECTOR: &str = "[data-action=stop]";
/// The CSS selector of `/processes`' Attach buttons.
pub const ATTACH_SELECTOR: &str = "[data-action=attach]";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_control_parses_back_from_its_attribute_value() {
        for control in Control::ALL {
            assert_eq!(Control::parse(control.as_str()), Some(control));
        }
        assert_eq!(Control::parse("nothing"), None);
    }

    #[test]
    fn the_stop_selector_names_the_stop_control() {
        assert_eq!(STOP_SELECTOR, format!("[data-action={}]", Control::Stop.as_str()));
        assert_eq!(ATTACH_SELECTOR, format!("[data-action={}]", Control::Attach.as_str()));
    }
}
