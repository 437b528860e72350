//! The real terminal: crossterm, with each frame wrapped in a synchronized update so the
//! terminal shows it whole (no tearing or flicker while a frame is being written).

use std::io::Stdout;

use ratatui::backend::{Backend, ClearType, CrosstermBackend, WindowSize};
use ratatui::buffer::Cell;
use ratatui::crossterm::execute;
use ratatui::crossterm::terminal::{BeginSynchronizedUpdate, EndSynchronizedUpdate};
use ratatui::layout::{Position, Size};

pub struct SyncedBackend {
    inner: CrosstermBackend<Stdout>,
    in_frame: bool,
}

impl SyncedBackend {
    pub fn stdout() -> Self {
        SyncedBackend { inner: CrosstermBackend::new(std::io::stdout()), in_frame: false }
    }

    fn begin(&mut self) -> std::io::Result<()> {
        if !self.in_frame {
            execute!(self.inner, BeginSynchronizedUpdate)?;
            self.in_frame = true;
        }
        Ok(())
    }
}

impl Backend for SyncedBackend {
    type Error = std::io::Error;

    fn draw<'a, I>(&mut self, content: I) -> std::io::Result<()>
    where
        I: Iterator<Item = (u16, u16, &'a Cell)>,
    {
        self.begin()?;
        self.inner.draw(content)
    }
    fn hide_cursor(&mut self) -> std::io::Result<()> {
        self.inner.hide_cursor()
    }
    fn show_cursor(&mut self) -> std::io::Result<()> {
        self.inner.show_cursor()
    }
    fn get_cursor_position(&mut self) -> std::io::Result<Position> {
        self.inner.get_cursor_position()
    }
    fn set_cursor_position<P: Into<Position>>(&mut self, position: P) -> std::io::Result<()> {
        self.inner.set_cursor_position(position)
    }
    fn clear(&mut self) -> std::io::Result<()> {
        self.begin()?;
        self.inner.clear()
    }
    fn clear_region(&mut self, clear_type: ClearType) -> std::io::Result<()> {
        self.begin()?;
        self.inner.clear_region(clear_type)
    }
    fn size(&self) -> std::io::Result<Size> {
        self.inner.size()
    }
    fn window_size(&mut self) -> std::io::Result<WindowSize> {
        self.inner.window_size()
    }
    fn flush(&mut self) -> std::io::Result<()> {
        if self.in_frame {
            execute!(self.inner, EndSynchronizedUpdate)?;
            self.in_frame = false;
        }
        Backend::flush(&mut self.inner)
    }
}
