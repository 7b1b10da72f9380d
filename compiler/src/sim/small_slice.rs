//! A slice stored inline when it holds one element: most groups have one
//! key column and one accumulator, and keeping those in the hash table's
//! own slot saves a pointer chase (a cache miss) on every lookup.

use std::borrow::Borrow;
use std::cmp::Ordering;
use std::hash::{Hash, Hasher};
use std::ops::{Deref, DerefMut};

#[derive(Clone, Debug)]
pub enum SmallSlice<T> {
    One(T),
    Many(Box<[T]>),
}

impl<T: Clone> From<&[T]> for SmallSlice<T> {
    fn from(items: &[T]) -> Self {
        match items {
            [one] => SmallSlice::One(one.clone()),
            many => SmallSlice::Many(many.into()),
        }
    }
}

impl<T> FromIterator<T> for SmallSlice<T> {
    fn from_iter<I: IntoIterator<Item = T>>(iter: I) -> Self {
        let mut items: Vec<T> = iter.into_iter().collect();
        if items.len() == 1 {
            SmallSlice::One(items.pop().expect("one item"))
        } else {
            SmallSlice::Many(items.into())
        }
    }
}

impl<T> Deref for SmallSlice<T> {
    type Target = [T];
    fn deref(&self) -> &[T] {
        match self {
            SmallSlice::One(one) => std::slice::from_ref(one),
            SmallSlice::Many(many) => many,
        }
    }
}

impl<T> DerefMut for SmallSlice<T> {
    fn deref_mut(&mut self) -> &mut [T] {
        match self {
            SmallSlice::One(one) => std::slice::from_mut(one),
            SmallSlice::Many(many) => many,
        }
    }
}

/// Lets a map keyed by `SmallSlice` be searched with a plain slice; hash,
/// equality and order are the slice's, as `Borrow` requires.
impl<T> Borrow<[T]> for SmallSlice<T> {
    fn borrow(&self) -> &[T] {
        self
    }
}

impl<T: Hash> Hash for SmallSlice<T> {
    fn hash<H: Hasher>(&self, state: &mut H) {
        (**self).hash(state)
    }
}

impl<T: PartialEq> PartialEq for SmallSlice<T> {
    fn eq(&self, other: &Self) -> bool {
        **self == **other
    }
}

impl<T: Eq> Eq for SmallSlice<T> {}

impl<T: Ord> PartialOrd for SmallSlice<T> {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl<T: Ord> Ord for SmallSlice<T> {
    fn cmp(&self, other: &Self) -> Ordering {
        (**self).cmp(&**other)
    }
}

#[cfg(test)]
mod tests {
    use super::SmallSlice;
    use std::hash::BuildHasher;

    #[test]
    fn hashes_and_orders_as_its_slice() {
        let h = rustc_hash::FxBuildHasher;
        for items in [&[][..], &[7][..], &[1, 2][..]] {
            let s = SmallSlice::from(items);
            assert_eq!(&*s, items);
            assert_eq!(h.hash_one(&s), h.hash_one(items));
        }
        assert!(SmallSlice::from(&[1][..]) < SmallSlice::from(&[1, 0][..]));
    }
}
