//! The shape of a model's event-time window, as its configuration declares
//! it: what the plan, the identity texts, the simulator and the Flink SQL
//! all read.

use crate::duration::Duration;

/// The most windows one event may fall in: a hop window's size over its
/// slide. Flink, like the simulator, does work per event and per key in
/// proportion to it (a slice per slide, merged each time a window fires),
/// so a typo such as `slide: 1ms` would exhaust both; a day sliding by ten
/// seconds is 8,640.
pub const MAX_WINDOWS_PER_EVENT: u64 = 10_000;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum WindowShape {
    /// Windows of `size` back to back, from the epoch.
    Tumbling { size: Duration },
    /// Windows of `size` starting every `slide`.
    Hop { size: Duration, slide: Duration },
    /// Per key, events less than `gap` apart share a window, which ends
    /// `gap` after its last event.
    Session { gap: Duration },
}

impl WindowShape {
    /// The manifest's window `type`.
    pub fn kind(&self) -> &'static str {
        match self {
            WindowShape::Tumbling { .. } => "tumbling",
            WindowShape::Hop { .. } => "hop",
            WindowShape::Session { .. } => "session",
        }
    }

    /// The fixed length of every window; `None` for sessions.
    pub fn size(&self) -> Option<Duration> {
        match *self {
            WindowShape::Tumbling { size } | WindowShape::Hop { size, .. } => Some(size),
            WindowShape::Session { .. } => None,
        }
    }

    pub fn slide(&self) -> Option<Duration> {
        match *self {
            WindowShape::Hop { slide, .. } => Some(slide),
            _ => None,
        }
    }

    /// False for a hop window whose slide is zero, longer than its size,
    /// or does not divide it (Flink's hop windows need whole slices).
    pub fn slide_fits(&self) -> bool {
        match *self {
            WindowShape::Hop { size, slide } => {
                let (ms, step) = (size.millis(), slide.millis());
                step > 0 && step <= ms && ms % step == 0
            }
            _ => true,
        }
    }

    /// How many windows each event falls in: size / slide for a hop
    /// window (rounded up), one otherwise.
    pub fn windows_per_event(&self) -> u64 {
        match *self {
            WindowShape::Hop { size, slide } if slide.millis() > 0 => size.millis().div_ceil(slide.millis()),
            _ => 1,
        }
    }

    /// False when an event would fall in more than [`MAX_WINDOWS_PER_EVENT`].
    pub fn windows_fit(&self) -> bool {
        self.windows_per_event() <= MAX_WINDOWS_PER_EVENT
    }

    pub fn gap(&self) -> Option<Duration> {
        match *self {
            WindowShape::Session { gap } => Some(gap),
            _ => None,
        }
    }
}
