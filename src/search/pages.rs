//! Memory for the transposition table, in a block aligned to 2 MiB that Linux is asked to
//! back with huge pages (`madvise(MADV_HUGEPAGE)`, as Stockfish does). A probe lands on a
//! random slot of many megabytes; with 4 KiB pages nearly every probe also misses the TLB
//! and pays a page walk on top of the cache miss, with 2 MiB pages one TLB entry covers
//! 512 times as much. Where the kernel says no (or on other systems) the block is ordinary
//! memory and everything works the same, only slower.

use std::alloc::{alloc, dealloc, Layout};
use std::ops::Deref;
use std::ptr::NonNull;

/// Types for which all-zero bytes are a valid value (atomics, integers), so a zeroed block
/// is a slice of them.
///
/// # Safety
/// Implement only for types whose every field is valid as zero bytes.
pub unsafe trait Zeroable {}

const HUGE_PAGE: usize = 2 * 1024 * 1024;

/// A fixed-length slice of zero-initialised `T` on (when it is big enough) huge pages.
pub struct ZeroedSlice<T: Zeroable> {
    ptr: NonNull<T>,
    len: usize,
    layout: Layout,
}

// SAFETY: the slice owns its block like a Box<[T]>; sending it is as safe as sending [T].
unsafe impl<T: Zeroable + Send> Send for ZeroedSlice<T> {}
// SAFETY: as above; sharing it is as safe as sharing [T].
unsafe impl<T: Zeroable + Sync> Sync for ZeroedSlice<T> {}

impl<T: Zeroable> ZeroedSlice<T> {
    /// `len` zeroed values, or `None` when the memory is not available.
    pub fn try_new(len: usize) -> Option<Self> {
        let bytes = len.checked_mul(std::mem::size_of::<T>())?.max(1);
        let align = if bytes >= HUGE_PAGE {
            HUGE_PAGE
        } else {
            std::mem::align_of::<T>().max(64)
        };
        let layout = Layout::from_size_align(bytes, align).ok()?;
        // SAFETY: the layout has a nonzero size.
        let raw = unsafe { alloc(layout) };
        let ptr = NonNull::new(raw as *mut T)?;
        // Ask for huge pages before the first write: the pages are faulted in by the
        // zeroing below, and only pages faulted in after the advice come as huge pages.
        #[cfg(target_os = "linux")]
        if align == HUGE_PAGE {
            // SAFETY: the range is the block just allocated; the advice is only a hint
            // (an error, e.g. transparent huge pages disabled, changes nothing).
            unsafe { libc::madvise(raw.cast(), bytes, libc::MADV_HUGEPAGE) };
        }
        // SAFETY: the block holds `bytes` writable bytes; zero bytes are a valid `T`.
        unsafe { raw.write_bytes(0, bytes) };
        Some(ZeroedSlice { ptr, len, layout })
    }
}

impl<T: Zeroable> Deref for ZeroedSlice<T> {
    type Target = [T];

    fn deref(&self) -> &[T] {
        // SAFETY: `len` initialised values live at `ptr` for as long as `self`.
        unsafe { std::slice::from_raw_parts(self.ptr.as_ptr(), self.len) }
    }
}

impl<T: Zeroable> Drop for ZeroedSlice<T> {
    fn drop(&mut self) {
        // SAFETY: allocated in `try_new` with this layout; `T: Zeroable` types here need no
        // drop of their own (atomics and integers).
        unsafe { dealloc(self.ptr.as_ptr().cast(), self.layout) };
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicU64, Ordering};

    // SAFETY: an atomic integer is valid as zero bytes.
    unsafe impl Zeroable for AtomicU64 {}

    #[test]
    fn small_and_huge_blocks_start_zeroed_and_keep_writes() {
        for len in [1, 1000, 3 * HUGE_PAGE / 8 + 5] {
            let block = ZeroedSlice::<AtomicU64>::try_new(len).expect("memory");
            assert_eq!(block.len(), len);
            assert!(block.iter().all(|v| v.load(Ordering::Relaxed) == 0));
            block[len - 1].store(7, Ordering::Relaxed);
            assert_eq!(block[len - 1].load(Ordering::Relaxed), 7);
            if len * 8 >= HUGE_PAGE {
                assert_eq!(block.as_ptr() as usize % HUGE_PAGE, 0, "2 MiB aligned");
            }
        }
    }

    #[test]
    fn an_impossible_size_is_refused() {
        assert!(ZeroedSlice::<AtomicU64>::try_new(usize::MAX / 4).is_none());
    }
}
