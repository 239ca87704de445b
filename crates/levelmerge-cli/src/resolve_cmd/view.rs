//! Drawing the interactive resolver: the conflicts on top, the three sides of the selected one
//! side by side below, the keys and the status at the bottom.

use levelmerge_core::regions::Take;
use levelmerge_core::Side;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span, Text};
use ratatui::widgets::{Block, List, ListItem, ListState, Paragraph, Wrap};
use ratatui::Frame;

use super::app::{choice_name, App, Tone};

const KEYS: &str = "↑↓ move · o ours · t theirs · b base · a both · x clear · u undo · w write · W save progress · q quit";

pub fn draw(frame: &mut Frame, app: &App) {
    // A long message (a refusal naming the problems) wraps over up to four lines.
    let width = usize::from(frame.area().width.max(1));
    let status_lines = app.status.1.chars().count().div_ceil(width).clamp(1, 4) as u16;
    let [title, list, sides, keys, status] = Layout::vertical([
        Constraint::Length(1),
        Constraint::Percentage(40),
        Constraint::Fill(1),
        Constraint::Length(1),
        Constraint::Length(status_lines),
    ])
    .areas(frame.area());
    let (settled, n) = (app.settled(), app.items.len());
    frame.render_widget(
        Line::from(vec![
            Span::styled(" levelmerge resolve ", Style::new().add_modifier(Modifier::BOLD | Modifier::REVERSED)),
            Span::raw(format!(" {} · {settled} of {n} settled", app.file)),
        ]),
        title,
    );
    draw_list(frame, app, list);
    draw_sides(frame, app, sides);
    frame.render_widget(Line::styled(KEYS, Style::new().fg(Color::DarkGray)), keys);
    let tone = match app.status.0 {
        Tone::Info => Style::new(),
        Tone::Warning => Style::new().fg(Color::Yellow),
        Tone::Error => Style::new().fg(Color::Red).add_modifier(Modifier::BOLD),
    };
    frame.render_widget(Paragraph::new(Line::styled(app.status.1.as_str(), tone)).wrap(Wrap { trim: false }), status);
}

fn draw_list(frame: &mut Frame, app: &App, area: Rect) {
    let rows: Vec<ListItem> = app
        .items
        .iter()
        .zip(&app.choices)
        .enumerate()
        .map(|(i, (item, &choice))| {
            let mark = format!("[{:^6}]", if choice.is_none() { "" } else { choice_name(choice) });
            let mark_style = if choice.is_some() { Style::new().fg(Color::Green) } else { Style::new().fg(Color::Yellow) };
            let props = if item.properties.is_empty() { String::new() } else { format!(" › {}", item.properties.join(", ")) };
            ListItem::new(Line::from(vec![
                Span::styled(mark, mark_style),
                Span::raw(format!(" #{} line {}  ", i + 1, item.line)),
                Span::styled(item.object.as_str(), Style::new().add_modifier(Modifier::BOLD)),
                Span::raw(props),
            ]))
        })
        .collect();
    let list = List::new(rows)
        .block(Block::bordered().title(" Conflicts "))
        .highlight_style(Style::new().add_modifier(Modifier::REVERSED))
        .highlight_symbol("▶ ");
    let mut state = ListState::default().with_selected(Some(app.selected));
    frame.render_stateful_widget(list, area, &mut state);
}

fn draw_sides(frame: &mut Frame, app: &App, area: Rect) {
    let Some(item) = app.items.get(app.selected) else { return };
    let choice = app.choices[app.selected];
    let report_height = if item.reported.is_empty() { 0 } else { item.reported.len().min(4) as u16 + 2 };
    let [report, area] = Layout::vertical([Constraint::Length(report_height), Constraint::Fill(1)]).areas(area);
    if !item.reported.is_empty() {
        let lines: Vec<Line> = item.reported.iter().map(|r| Line::raw(r.as_str())).collect();
        frame.render_widget(Paragraph::new(lines).block(Block::bordered().title(" merge report ")), report);
    }
    let columns: [Rect; 3] = Layout::horizontal([Constraint::Ratio(1, 3); 3]).areas(area);
    let sides = [(Side::Ours, Some(&item.ours)), (Side::Base, item.base.as_ref()), (Side::Theirs, Some(&item.theirs))];
    for ((side, text), column) in sides.into_iter().zip(columns) {
        let taken = match choice {
            Some(Take::Side(s)) => s == side,
            Some(Take::Both) => side != Side::Base,
            None => false,
        };
        let mut title = format!(" {} ", side.name());
        if taken {
            title.push_str("(taken) ");
        }
        let border = if taken { Style::new().fg(Color::Green) } else { Style::new() };
        // Each side's words that differ from base (or, without base, from the other side) stand out.
        let against = match side {
            Side::Base => None,
            _ if item.base.is_some() => item.base.as_deref(),
            Side::Ours => Some(item.theirs.as_str()),
            Side::Theirs => Some(item.ours.as_str()),
        };
        let body = match text {
            Some(t) if t.is_empty() => Paragraph::new(Line::styled("(nothing)", Style::new().fg(Color::DarkGray))),
            Some(t) => Paragraph::new(highlighted(t, against)),
            None => Paragraph::new(Line::styled("(no base section in these markers)", Style::new().fg(Color::DarkGray))),
        };
        let block = Block::bordered().title(title).border_style(border);
        frame.render_widget(body.block(block).wrap(Wrap { trim: false }).scroll((app.scroll, 0)), column);
    }
}

/// `text` with the words that `against` does not have in bold yellow.
fn highlighted<'a>(text: &'a str, against: Option<&'a str>) -> Text<'a> {
    let Some(against) = against else { return Text::raw(text) };
    let changed = Style::new().fg(Color::Yellow).add_modifier(Modifier::BOLD);
    let mut lines = vec![Line::default()];
    let diff = similar::TextDiff::from_words(against, text);
    for change in diff.iter_all_changes() {
        let style = match change.tag() {
            similar::ChangeTag::Delete => continue,
            similar::ChangeTag::Equal => Style::new(),
            similar::ChangeTag::Insert => changed,
        };
        let mut parts = change.value().split('\n');
        if let Some(first) = parts.next().filter(|p| !p.is_empty()) {
            lines.last_mut().expect("one line at least").push_span(Span::styled(first, style));
        }
        for part in parts {
            lines.push(Line::from(Span::styled(part, style)));
        }
    }
    if lines.last().is_some_and(|l| l.spans.iter().all(|s| s.content.is_empty())) && text.ends_with('\n') {
        lines.pop();
    }
    Text::from(lines)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::resolve_cmd::app::tests::items;
    use crate::resolve_cmd::app::Key;
    use ratatui::backend::TestBackend;
    use ratatui::Terminal;

    fn screen(app: &App) -> Terminal<TestBackend> {
        let mut terminal = Terminal::new(TestBackend::new(110, 24)).unwrap();
        terminal.draw(|f| draw(f, app)).unwrap();
        terminal
    }

    #[test]
    fn the_first_screen_lists_the_conflicts_and_shows_the_selected_one_side_by_side() {
        let app = App::new("Level.unity".to_owned(), items());
        insta::assert_snapshot!(screen(&app).backend());
    }

    #[test]
    fn a_taken_side_is_marked_in_the_list_and_on_its_pane() {
        let mut app = App::new("Level.unity".to_owned(), items());
        app.press(Key::Take(Take::Side(Side::Theirs)));
        app.press(Key::Up);
        let terminal = screen(&app);
        insta::assert_snapshot!(terminal.backend());
        // The taken pane's border is green; the others are not.
        let buffer = terminal.backend().buffer();
        let row = |y: u16| (0..7).map(|x| buffer[(x, y)].symbol()).collect::<String>();
        let top_of_sides = (0..24).find(|&y| row(y) == "┌ ours ").expect("side panes");
        assert_eq!(buffer[(109, top_of_sides)].fg, Color::Green, "theirs, on the right, is taken");
        assert_eq!(buffer[(0, top_of_sides)].fg, Color::Reset);
    }

    #[test]
    fn words_that_differ_from_base_stand_out_and_long_lines_wrap() {
        let text = highlighted("  m_Size: {x: 1, y: 2, z: 1}\n", Some("  m_Size: {x: 1, y: 1, z: 1}\n"));
        assert_eq!(text.lines.len(), 1);
        let bold: Vec<&str> =
            text.lines[0].spans.iter().filter(|s| s.style.fg == Some(Color::Yellow)).map(|s| s.content.as_ref()).collect();
        assert_eq!(bold, ["2,"]);
        let mut items = items();
        items[0].ours = format!("    {{ \"id\": 2, \"type\": \"torch\", \"name\": \"Torch\", \"x\": {} }}\n", "5".repeat(40));
        let app = App::new("level.json".to_owned(), items);
        let screen = format!("{}", screen(&app).backend());
        assert!(screen.contains(&"5".repeat(20)), "the end of a long line is shown on the next row:\n{screen}");
    }
}
