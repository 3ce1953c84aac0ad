//! A fixed-capacity list that lives on the stack. The search keeps its moves and the moves
//! it has tried in these: a heap allocation at every node costs more than the node's work.

use std::mem::MaybeUninit;
use std::ops::{Deref, DerefMut};

/// Most legal moves any chess position has (218), rounded up.
pub const MAX_MOVES: usize = 256;

pub struct StackList<T: Copy, const N: usize> {
    items: [MaybeUninit<T>; N],
    len: usize,
}

impl<T: Copy, const N: usize> StackList<T, N> {
    pub fn new() -> Self {
        StackList {
            items: [const { MaybeUninit::uninit() }; N],
            len: 0,
        }
    }

    /// Appends `item`; a full list ignores it (capacities are chosen above anything a
    /// legal position produces, so this only guards against a logic error).
    #[inline]
    pub fn push(&mut self, item: T) {
        if self.len < N {
            self.items[self.len].write(item);
            self.len += 1;
        }
    }

    /// Keeps the first `len` items (no-op if there are fewer).
    #[inline]
    pub fn truncate(&mut self, len: usize) {
        self.len = self.len.min(len);
    }
}

impl<T: Copy, const N: usize> Default for StackList<T, N> {
    fn default() -> Self {
        Self::new()
    }
}

impl<T: Copy, const N: usize> Deref for StackList<T, N> {
    type Target = [T];
    #[inline]
    fn deref(&self) -> &[T] {
        // SAFETY: the first `len` items were written by `push`, and `MaybeUninit<T>` has
        // the layout of `T`.
        unsafe { std::slice::from_raw_parts(self.items.as_ptr() as *const T, self.len) }
    }
}

impl<T: Copy, const N: usize> DerefMut for StackList<T, N> {
    #[inline]
    fn deref_mut(&mut self) -> &mut [T] {
        // SAFETY: as in `deref`; `&mut self` makes the borrow unique.
        unsafe { std::slice::from_raw_parts_mut(self.items.as_mut_ptr() as *mut T, self.len) }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn push_and_read_back() {
        let mut list: StackList<u32, 4> = StackList::new();
        assert!(list.is_empty());
        for i in 0..6 {
            list.push(i * 10);
        }
        assert_eq!(&*list, &[0, 10, 20, 30]); // capacity 4: the rest is dropped
        list[1] = 7;
        list.swap(0, 3);
        assert_eq!(&*list, &[30, 7, 20, 0]);
    }
}
