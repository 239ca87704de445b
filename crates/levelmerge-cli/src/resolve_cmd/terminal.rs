//! The interactive resolver on a real terminal: crossterm keys in, ratatui frames out.

use anyhow::Result;
use crossterm::event::{self, Event, KeyCode, KeyEvent, KeyEventKind, KeyModifiers};
use levelmerge_core::regions::Take;
use levelmerge_core::Side;

use super::app::{App, Key, Request};
use super::view;

/// How the session ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ended {
    /// Every conflict settled and the file written.
    Written,
    /// Quit with conflicts left (some may have been saved as progress).
    Quit,
}

/// Runs the resolver until the user writes or quits. `save` writes the file with the given
/// choices (`partial` when some are still open) and says what it did, or why it refused.
pub fn run(app: &mut App, mut save: impl FnMut(&[Option<Take>], bool) -> Result<String>) -> Result<Ended> {
    let mut terminal = ratatui::try_init()?;
    let ended = (|| loop {
        terminal.draw(|f| view::draw(f, app))?;
        let Event::Key(pressed) = event::read()? else { continue };
        let Some(key) = key_for(pressed) else { continue };
        match app.press(key) {
            Request::Nothing => {}
            Request::Quit => return Ok(Ended::Quit),
            Request::Save { partial } => match save(&app.choices, partial) {
                Ok(_) if !partial => return Ok(Ended::Written),
                Ok(said) => app.saved(said),
                Err(e) => app.refused(format!("{e:#}")),
            },
        }
    })();
    ratatui::restore();
    ended
}

fn key_for(pressed: KeyEvent) -> Option<Key> {
    if pressed.kind != KeyEventKind::Press {
        return None;
    }
    let ctrl = pressed.modifiers.contains(KeyModifiers::CONTROL);
    Some(match pressed.code {
        KeyCode::Char('c') if ctrl => Key::Quit,
        KeyCode::Char('z') if ctrl => Key::Undo,
        KeyCode::Up | KeyCode::Char('k') => Key::Up,
        KeyCode::Down | KeyCode::Char('j') => Key::Down,
        KeyCode::Char('o') => Key::Take(Take::Side(Side::Ours)),
        KeyCode::Char('t') => Key::Take(Take::Side(Side::Theirs)),
        KeyCode::Char('b') => Key::Take(Take::Side(Side::Base)),
        KeyCode::Char('a') => Key::Take(Take::Both),
        KeyCode::Char('x') | KeyCode::Delete | KeyCode::Backspace => Key::Clear,
        KeyCode::Char('u') => Key::Undo,
        KeyCode::Char('w') => Key::Write,
        KeyCode::Char('W') => Key::SavePartial,
        KeyCode::Char('q') | KeyCode::Esc => Key::Quit,
        KeyCode::PageUp => Key::ScrollUp,
        KeyCode::PageDown => Key::ScrollDown,
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_map_to_the_resolver_s_commands() {
        let press = |code, modifiers| key_for(KeyEvent::new(code, modifiers));
        assert_eq!(press(KeyCode::Char('t'), KeyModifiers::NONE), Some(Key::Take(Take::Side(Side::Theirs))));
        assert_eq!(press(KeyCode::Char('W'), KeyModifiers::SHIFT), Some(Key::SavePartial));
        assert_eq!(press(KeyCode::Char('c'), KeyModifiers::CONTROL), Some(Key::Quit));
        assert_eq!(press(KeyCode::Char('?'), KeyModifiers::NONE), None);
        let mut release = KeyEvent::new(KeyCode::Char('o'), KeyModifiers::NONE);
        release.kind = KeyEventKind::Release;
        assert_eq!(key_for(release), None, "a key counts once, when pressed");
    }
}
