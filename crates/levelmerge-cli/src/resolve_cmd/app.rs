//! The interactive resolver's state, free of any terminal: keys go in, requests to save or
//! quit come out. The tests drive it directly and render it into a test backend.

use levelmerge_core::regions::Take;
use levelmerge_core::Side;

/// One conflict as the resolver shows it.
#[derive(Debug, Clone)]
pub struct Item {
    /// 1-based line of the conflict's `<<<<<<<` marker in the file.
    pub line: usize,
    /// The object's path and type (`Level/Props/Door [GameObject]`).
    pub object: String,
    /// The properties its lines set.
    pub properties: Vec<String>,
    /// What the merge's report says of it, a line per conflict.
    pub reported: Vec<String>,
    /// Each side's lines: ours, base (only in the diff3 style), theirs.
    pub ours: String,
    pub base: Option<String>,
    pub theirs: String,
}

/// What the user asks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Key {
    Up,
    Down,
    Take(Take),
    /// Forget the selected conflict's choice.
    Clear,
    Undo,
    /// Write the file: only when every conflict is settled.
    Write,
    /// Write the settled conflicts and keep the markers of the others.
    SavePartial,
    Quit,
    ScrollUp,
    ScrollDown,
}

/// What the terminal loop must do after a key.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Request {
    Nothing,
    Save { partial: bool },
    Quit,
}

/// The status line's tone.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Tone {
    Info,
    Warning,
    Error,
}

#[derive(Debug)]
pub struct App {
    pub file: String,
    pub items: Vec<Item>,
    pub choices: Vec<Option<Take>>,
    /// The choices last written to the file, to know whether quitting loses anything.
    written: Vec<Option<Take>>,
    /// Earlier choices, for undo: which conflict and what it held.
    history: Vec<(usize, Option<Take>)>,
    pub selected: usize,
    /// How far the side panes are scrolled down.
    pub scroll: u16,
    pub status: (Tone, String),
    quit_asked: bool,
}

impl App {
    pub fn new(file: String, items: Vec<Item>) -> App {
        let n = items.len();
        App {
            file,
            items,
            choices: vec![None; n],
            written: vec![None; n],
            history: Vec::new(),
            selected: 0,
            scroll: 0,
            status: (Tone::Info, format!("{n} conflict(s) to settle")),
            quit_asked: false,
        }
    }

    pub fn settled(&self) -> usize {
        self.choices.iter().filter(|c| c.is_some()).count()
    }

    pub fn press(&mut self, key: Key) -> Request {
        let quit_asked = std::mem::take(&mut self.quit_asked);
        match key {
            Key::Up => self.select(self.selected.saturating_sub(1)),
            Key::Down => self.select((self.selected + 1).min(self.items.len().saturating_sub(1))),
            Key::ScrollUp => self.scroll = self.scroll.saturating_sub(5),
            Key::ScrollDown => self.scroll = self.scroll.saturating_add(5),
            Key::Take(take) => self.take(take),
            Key::Clear => self.choose(None),
            Key::Undo => match self.history.pop() {
                Some((index, before)) => {
                    self.choices[index] = before;
                    self.select(index);
                    self.say(Tone::Info, format!("undone: conflict #{} is {}", index + 1, choice_name(before)));
                }
                None => self.say(Tone::Warning, "nothing to undo".to_owned()),
            },
            Key::Write => {
                let left = self.items.len() - self.settled();
                if left == 0 {
                    return Request::Save { partial: false };
                }
                self.say(Tone::Warning, format!("{left} conflict(s) not settled yet: settle them, or press W to save this progress"));
            }
            Key::SavePartial => {
                if self.settled() == 0 {
                    self.say(Tone::Warning, "nothing settled yet: nothing to save".to_owned());
                } else {
                    return Request::Save { partial: true };
                }
            }
            Key::Quit => {
                if self.choices == self.written || quit_asked {
                    return Request::Quit;
                }
                self.quit_asked = true;
                self.say(Tone::Warning, "choices not written: press q again to quit without writing them, w to write".to_owned());
            }
        }
        Request::Nothing
    }

    /// The file was written with the current choices.
    pub fn saved(&mut self, message: String) {
        self.written = self.choices.clone();
        self.say(Tone::Info, message);
    }

    /// Writing was refused (the settled level would be broken, or the disk said no).
    pub fn refused(&mut self, message: String) {
        self.say(Tone::Error, message);
    }

    fn select(&mut self, index: usize) {
        if index != self.selected {
            self.scroll = 0;
        }
        self.selected = index;
    }

    fn take(&mut self, take: Take) {
        let Some(item) = self.items.get(self.selected) else { return };
        if take == Take::Side(Side::Base) && item.base.is_none() {
            self.say(Tone::Warning, "this conflict has no base section (git writes one with merge.conflictStyle=diff3)".to_owned());
            return;
        }
        self.choose(Some(take));
        // On to the next conflict still open, so that settling is one key per conflict.
        let n = self.items.len();
        if let Some(next) = (1..n).map(|step| (self.selected + step) % n).find(|&i| self.choices[i].is_none()) {
            self.select(next);
        }
    }

    fn choose(&mut self, choice: Option<Take>) {
        let Some(current) = self.choices.get_mut(self.selected) else { return };
        if *current == choice {
            return;
        }
        self.history.push((self.selected, *current));
        *current = choice;
        let (settled, n) = (self.settled(), self.items.len());
        let done = if settled == n { ": all settled, press w to write" } else { "" };
        self.say(Tone::Info, format!("#{} {}; {settled} of {n} settled{done}", self.selected + 1, choice_name(choice)));
    }

    fn say(&mut self, tone: Tone, text: String) {
        self.status = (tone, text);
    }
}

/// How a choice is named on screen.
pub fn choice_name(choice: Option<Take>) -> &'static str {
    match choice {
        None => "open",
        Some(Take::Side(side)) => side.name(),
        Some(Take::Both) => "both",
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    pub fn items() -> Vec<Item> {
        vec![
            Item {
                line: 12,
                object: "Level/Props/Door_12 [GameObject] › BoxCollider".to_owned(),
                properties: vec!["m_Size".to_owned()],
                reported: vec![
                    "Level/Props/Door_12 [GameObject] › BoxCollider.m_Size.y: both-modified, base 1 · ours 2 · theirs 3".to_owned()
                ],
                ours: "  m_Size: {x: 1, y: 2, z: 1}\n".to_owned(),
                base: Some("  m_Size: {x: 1, y: 1, z: 1}\n".to_owned()),
                theirs: "  m_Size: {x: 1, y: 3, z: 1}\n".to_owned(),
            },
            Item {
                line: 40,
                object: "Level/Props/Lamp [GameObject] › Light".to_owned(),
                properties: vec!["m_Intensity".to_owned(), "m_Range".to_owned()],
                reported: Vec::new(),
                ours: "  m_Intensity: 2\n  m_Range: 10\n".to_owned(),
                base: None,
                theirs: "  m_Intensity: 3\n  m_Range: 12\n".to_owned(),
            },
        ]
    }

    fn app() -> App {
        App::new("Level.unity".to_owned(), items())
    }

    #[test]
    fn taking_a_side_moves_on_and_writing_waits_for_every_conflict() {
        let mut a = app();
        assert_eq!(a.press(Key::Write), Request::Nothing);
        assert!(a.status.1.starts_with("2 conflict(s) not settled"), "{:?}", a.status);
        a.press(Key::Take(Take::Side(Side::Theirs)));
        assert_eq!((a.choices[0], a.selected), (Some(Take::Side(Side::Theirs)), 1));
        a.press(Key::Take(Take::Both));
        assert_eq!(a.settled(), 2);
        assert!(a.status.1.ends_with("all settled, press w to write"), "{:?}", a.status);
        assert_eq!(a.press(Key::Write), Request::Save { partial: false });
    }

    #[test]
    fn base_is_refused_where_the_markers_have_none() {
        let mut a = app();
        a.press(Key::Down);
        a.press(Key::Take(Take::Side(Side::Base)));
        assert_eq!(a.choices[1], None);
        assert_eq!(a.status.0, Tone::Warning);
        a.press(Key::Up);
        a.press(Key::Take(Take::Side(Side::Base)));
        assert_eq!(a.choices[0], Some(Take::Side(Side::Base)));
    }

    #[test]
    fn undo_walks_back_each_choice() {
        let mut a = app();
        a.press(Key::Take(Take::Side(Side::Ours)));
        a.press(Key::Up);
        a.press(Key::Take(Take::Side(Side::Theirs)));
        assert_eq!(a.selected, 1, "on to the open conflict");
        a.press(Key::Up);
        a.press(Key::Clear);
        assert_eq!(a.choices, [None, None]);
        a.press(Key::Undo);
        assert_eq!(a.choices[0], Some(Take::Side(Side::Theirs)));
        a.press(Key::Undo);
        assert_eq!(a.choices[0], Some(Take::Side(Side::Ours)));
        a.press(Key::Undo);
        assert_eq!((a.choices[0], a.selected), (None, 0));
        a.press(Key::Undo);
        assert_eq!(a.status, (Tone::Warning, "nothing to undo".to_owned()));
    }

    #[test]
    fn quitting_with_unwritten_choices_asks_twice() {
        let mut a = app();
        assert_eq!(a.press(Key::Quit), Request::Quit, "nothing chosen: nothing to lose");
        a.press(Key::Take(Take::Side(Side::Ours)));
        assert_eq!(a.press(Key::Quit), Request::Nothing);
        assert_eq!(a.press(Key::Down), Request::Nothing);
        assert_eq!(a.press(Key::Quit), Request::Nothing, "another key in between asks again");
        assert_eq!(a.press(Key::Quit), Request::Quit);
        let mut b = app();
        b.press(Key::Take(Take::Side(Side::Ours)));
        assert_eq!(b.press(Key::SavePartial), Request::Save { partial: true });
        b.saved("saved".to_owned());
        assert_eq!(b.press(Key::Quit), Request::Quit, "what was chosen is written");
    }

    #[test]
    fn saving_nothing_is_refused() {
        let mut a = app();
        assert_eq!(a.press(Key::SavePartial), Request::Nothing);
        a.refused("disk full".to_owned());
        assert_eq!(a.status, (Tone::Error, "disk full".to_owned()));
    }
}
