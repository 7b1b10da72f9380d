//! The shape of a model's event-time window, as its configuration declares
//! it: what the plan, the identity texts, the simulator and the Flink SQL
//! all read.

use crate::duration::Duration;

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

    pub fn gap(&self) -> Option<Duration> {
        match *self {
            WindowShape::Session { gap } => Some(gap),
            _ => None,
        }
    }
}
