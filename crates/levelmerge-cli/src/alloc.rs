//! The process's allocator: blocks are carved in order from one region of transparent huge
//! pages until it is full, then come from mimalloc.
//!
//! Why: most runs are short (git starts one merge per file), and the first write to a huge
//! page has the kernel clear all 2 MiB of it, about 230 µs. mimalloc gives every block size
//! its own 64 KiB page and each medium size its own 512 KiB, so its blocks are spread: a
//! merge of a 160 KB Godot scene, 3 MiB of blocks, wrote to 4 huge pages (8 MiB cleared),
//! `--version` to 2. Carved in order, the same blocks lie in as few huge pages as their
//! bytes need. Small pages are no cure: a first write to a 4 KiB page costs about 2 µs in a
//! virtual machine, more than clearing it as part of a huge one.
//!
//! A block freed while it is the last carved gives its bytes back, and the last block grows
//! in place; others stay used until the process ends: the region is bounded, so a long run
//! (the hub) loses at most [`REGION`] bytes to it.
//!
//! Only the thread that maps the region (the main thread, which allocates first) carves
//! from it; other threads allocate from mimalloc, which keeps a heap for each. Threads
//! carving from one shared region contended for its end and shared cache lines between
//! their blocks: the JSON codec's three reading threads made a 5.8 MB GDevelop merge 26%
//! slower.

use std::alloc::{GlobalAlloc, Layout};
use std::sync::atomic::{AtomicUsize, Ordering};

use mimalloc::MiMalloc;

/// Bytes of the process's region. Huge pages are cleared as they are first written, so a
/// small run pays only for what it uses.
pub const REGION: usize = 8 << 20;
const HUGE_PAGE: usize = 2 << 20;

/// A region's `base` before it is mapped, while one thread maps it, and when it cannot be.
const UNMAPPED: usize = 0;
const MAPPING: usize = 1;
const UNAVAILABLE: usize = 2;

pub struct RegionThenMimalloc {
    region: Region,
}

impl RegionThenMimalloc {
    /// An allocator whose region holds `len` bytes, mapped on first use.
    pub const fn new(len: usize) -> RegionThenMimalloc {
        RegionThenMimalloc {
            region: Region { len, owner: AtomicUsize::new(0), base: AtomicUsize::new(UNMAPPED), top: AtomicUsize::new(0) },
        }
    }
}

struct Region {
    len: usize,
    /// The thread that mapped the region, the one that carves from it ([`this_thread`]).
    owner: AtomicUsize,
    /// The first byte (huge-page aligned, so never one of the states above).
    base: AtomicUsize,
    /// The first byte not carved yet.
    top: AtomicUsize,
}

impl Region {
    /// The first byte, mapping the region on first use; `None` while another thread maps it
    /// or when the system gives no memory for it (mimalloc serves then).
    fn base(&self) -> Option<usize> {
        match self.base.load(Ordering::Acquire) {
            UNMAPPED => {
                if self.base.compare_exchange(UNMAPPED, MAPPING, Ordering::Acquire, Ordering::Relaxed).is_err() {
                    return None;
                }
                let base = map(self.len);
                self.owner.store(this_thread(), Ordering::Relaxed);
                let_mimalloc_use_huge_pages_from_any_thread();
                self.top.store(base.unwrap_or(0), Ordering::Relaxed);
                self.base.store(base.unwrap_or(UNAVAILABLE), Ordering::Release);
                base
            }
            MAPPING | UNAVAILABLE => None,
            base => Some(base),
        }
    }

    fn holds(&self, ptr: *mut u8) -> bool {
        let base = self.base.load(Ordering::Acquire);
        base > UNAVAILABLE && (base..base + self.len).contains(&(ptr as usize))
    }

    /// A block for `layout` carved after the last, if this thread carves and the region has
    /// room.
    fn carve(&self, layout: Layout) -> Option<*mut u8> {
        let end = self.base()? + self.len;
        if self.owner.load(Ordering::Relaxed) != this_thread() {
            return None;
        }
        let mut top = self.top.load(Ordering::Acquire);
        loop {
            let start = top.next_multiple_of(layout.align());
            let new_top = start.checked_add(layout.size()).filter(|&t| t <= end)?;
            match self.top.compare_exchange_weak(top, new_top, Ordering::AcqRel, Ordering::Acquire) {
                Ok(_) => return Some(start as *mut u8),
                Err(now) => top = now,
            }
        }
    }

    /// Move the end of the block at `ptr`, `old` bytes long, to `new` bytes, if it is the last
    /// carved and the region has room.
    fn resize_last(&self, ptr: *mut u8, old: usize, new: usize) -> bool {
        let start = ptr as usize;
        let end = self.base.load(Ordering::Acquire) + self.len;
        start + new <= end && self.top.compare_exchange(start + old, start + new, Ordering::AcqRel, Ordering::Acquire).is_ok()
    }
}

/// mimalloc reserves its memory with huge pages unless the first thread to need it is not
/// the only thread and is among the first to make a segment (its "eager commit delay"). With
/// the main thread carving from the region, the first to need mimalloc is often a reading
/// thread, and the whole of mimalloc's memory then had small pages: a 5.8 MB GDevelop merge
/// took 6,600 page faults instead of 200, and 40 ms instead of 33.
fn let_mimalloc_use_huge_pages_from_any_thread() {
    // SAFETY: sets a number among mimalloc's options; it allocates nothing.
    unsafe { libmimalloc_sys::mi_option_set(libmimalloc_sys::mi_option_eager_commit_delay, 0) };
}

thread_local! {
    /// A byte whose address tells threads apart (no allocation, no destructor: usable inside
    /// the allocator).
    static THREAD_MARK: u8 = const { 0 };
}

/// The running thread, as the address of its [`THREAD_MARK`]: unique among living threads.
/// (The region's owner is the main thread, whose end ends the process, so no later thread
/// takes its address.)
fn this_thread() -> usize {
    THREAD_MARK.with(|mark| mark as *const u8 as usize)
}

/// Reserve address space for `len` bytes on a huge-page boundary; pages are given (and
/// cleared) by the kernel as they are first written.
fn map(len: usize) -> Option<usize> {
    use rustix::mm::{madvise, mmap_anonymous, Advice, MapFlags, ProtFlags};
    // SAFETY: a fresh private mapping at an address of the kernel's choosing touches no
    // existing memory.
    let mapped = unsafe {
        mmap_anonymous(std::ptr::null_mut(), len + HUGE_PAGE, ProtFlags::READ | ProtFlags::WRITE, MapFlags::PRIVATE | MapFlags::NORESERVE)
    }
    .ok()? as usize;
    let base = mapped.next_multiple_of(HUGE_PAGE);
    // SAFETY: advice on the mapping just made; a kernel without huge pages refuses it, and the
    // region then works with small pages.
    let _ = unsafe { madvise(base as *mut _, len, Advice::LinuxHugepage) };
    Some(base)
}

// SAFETY: blocks carved from the region never overlap (each moves `top` past itself by one
// atomic exchange, and `top` moves back only over the last block, when it is freed or
// shrunk); every other block is mimalloc's, told apart by its address.
unsafe impl GlobalAlloc for RegionThenMimalloc {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        match self.region.carve(layout) {
            Some(ptr) => ptr,
            // SAFETY: the caller's contract, passed on.
            None => unsafe { MiMalloc.alloc(layout) },
        }
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        match self.region.carve(layout) {
            Some(ptr) => {
                // SAFETY: `ptr` was just carved for `layout.size()` bytes. A freed last block
                // is carved again, so the bytes may not be zero.
                unsafe { ptr.write_bytes(0, layout.size()) };
                ptr
            }
            // SAFETY: the caller's contract, passed on.
            None => unsafe { MiMalloc.alloc_zeroed(layout) },
        }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        if self.region.holds(ptr) {
            self.region.resize_last(ptr, layout.size(), 0);
        } else {
            // SAFETY: not the region's, so mimalloc gave it.
            unsafe { MiMalloc.dealloc(ptr, layout) }
        }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        if !self.region.holds(ptr) {
            // SAFETY: not the region's, so mimalloc gave it.
            return unsafe { MiMalloc.realloc(ptr, layout, new_size) };
        }
        if new_size <= layout.size() {
            self.region.resize_last(ptr, layout.size(), new_size);
            return ptr;
        }
        if self.region.resize_last(ptr, layout.size(), new_size) {
            return ptr;
        }
        // SAFETY: `new_size` with the block's alignment is a valid layout (the caller's
        // contract); the old block holds `layout.size()` bytes, fewer than the new one.
        unsafe {
            let moved = self.alloc(Layout::from_size_align_unchecked(new_size, layout.align()));
            if !moved.is_null() {
                std::ptr::copy_nonoverlapping(ptr, moved, layout.size());
                self.dealloc(ptr, layout);
            }
            moved
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn layout(size: usize, align: usize) -> Layout {
        Layout::from_size_align(size, align).unwrap()
    }

    #[test]
    fn blocks_are_carved_in_order_aligned_and_the_last_is_given_back() {
        let a = RegionThenMimalloc::new(1 << 20);
        unsafe {
            let first = a.alloc(layout(10, 1));
            assert!(a.region.holds(first));
            assert_eq!(first as usize % HUGE_PAGE, 0, "the region starts on a huge page");
            let second = a.alloc(layout(64, 64));
            assert_eq!(second as usize, first as usize + 64, "aligned right after the first");
            a.dealloc(second, layout(64, 64));
            let again = a.alloc(layout(8, 8));
            assert_eq!(again, second, "the last block's bytes were given back (the padding before it stays)");
            // Not the last: stays carved.
            a.dealloc(first, layout(10, 1));
            assert_eq!(a.alloc(layout(1, 1)) as usize, again as usize + 8);
        }
    }

    #[test]
    fn the_last_block_grows_in_place_and_another_moves_with_its_bytes() {
        let a = RegionThenMimalloc::new(1 << 20);
        unsafe {
            let first = a.alloc(layout(4, 4));
            first.copy_from([1u8, 2, 3, 4].as_ptr(), 4);
            let grown = a.realloc(first, layout(4, 4), 100);
            assert_eq!(grown, first, "the last block grows in place");
            let second = a.alloc(layout(4, 4));
            let moved = a.realloc(grown, layout(100, 4), 200);
            assert!(moved as usize > second as usize, "a block that is not the last moves past it");
            assert_eq!(std::slice::from_raw_parts(moved, 4), [1, 2, 3, 4]);
            let shrunk = a.realloc(moved, layout(200, 4), 10);
            assert_eq!(shrunk, moved);
            assert_eq!(a.alloc(layout(1, 1)) as usize, moved as usize + 10, "a shrunk last block gives its tail back");
        }
    }

    #[test]
    fn a_full_region_hands_over_to_mimalloc() {
        let a = RegionThenMimalloc::new(1 << 16);
        unsafe {
            let inside = a.alloc(layout(1 << 15, 8));
            assert!(a.region.holds(inside));
            let outside = a.alloc(layout(1 << 16, 8));
            assert!(!outside.is_null() && !a.region.holds(outside), "no room: mimalloc's block");
            outside.write_bytes(7, 1 << 16);
            // The last region block cannot grow past the end: it moves to mimalloc.
            let moved = a.realloc(inside, layout(1 << 15, 8), 1 << 17);
            assert!(!a.region.holds(moved));
            let grown = a.realloc(outside, layout(1 << 16, 8), 1 << 18);
            assert_eq!(*grown.add((1 << 16) - 1), 7);
            a.dealloc(grown, layout(1 << 18, 8));
            a.dealloc(moved, layout(1 << 17, 8));
            // The region's last block was moved out, so its bytes are free again.
            assert_eq!(a.alloc(layout(8, 8)), inside);
        }
    }

    #[test]
    fn zeroed_blocks_are_zero_where_a_freed_block_was() {
        let a = RegionThenMimalloc::new(1 << 20);
        unsafe {
            let dirty = a.alloc(layout(256, 8));
            dirty.write_bytes(0xAB, 256);
            a.dealloc(dirty, layout(256, 8));
            let zeroed = a.alloc_zeroed(layout(256, 8));
            assert_eq!(zeroed, dirty);
            assert!(std::slice::from_raw_parts(zeroed, 256).iter().all(|&b| b == 0));
        }
    }

    /// Other threads get mimalloc's blocks, and may free, grow and shrink the owner's blocks
    /// while the owner carves: no block is ever handed out twice.
    #[test]
    fn other_threads_use_mimalloc_and_may_free_the_owners_blocks() {
        let a = RegionThenMimalloc::new(1 << 20);
        unsafe {
            let owned = a.alloc(layout(8, 8));
            assert!(a.region.holds(owned), "the first thread to allocate owns the region");
            a.dealloc(owned, layout(8, 8));
        }
        let (sender, receiver) = std::sync::mpsc::channel::<(usize, usize, u8)>();
        std::thread::scope(|scope| {
            let a = &a;
            scope.spawn(move || {
                for (i, (p, size, mark)) in receiver.into_iter().enumerate() {
                    unsafe {
                        let other = a.alloc(layout(64, 8));
                        assert!(!a.region.holds(other), "only the owner carves");
                        a.dealloc(other, layout(64, 8));
                        assert!(std::slice::from_raw_parts(p as *const u8, size).iter().all(|&b| b == mark));
                        if i % 2 == 0 {
                            a.dealloc(p as *mut u8, layout(size, 8));
                        } else {
                            let q = a.realloc(p as *mut u8, layout(size, 8), size * 3);
                            assert!(std::slice::from_raw_parts(q, size).iter().all(|&b| b == mark));
                            a.dealloc(q, layout(size * 3, 8));
                        }
                    }
                }
            });
            // The owner carves; every other block goes to the thread above, which frees or
            // grows it, perhaps while it is the last.
            let mut kept = Vec::new();
            for step in 0..3_000usize {
                let size = 1 + (step * 37) % 500;
                let mark = step as u8;
                unsafe {
                    let p = a.alloc(layout(size, 8));
                    assert!(a.region.holds(p), "the owner carves while the region has room");
                    p.write_bytes(mark, size);
                    if step % 2 == 0 {
                        sender.send((p as usize, size, mark)).unwrap();
                    } else {
                        kept.push((p as usize, size, mark));
                    }
                }
            }
            drop(sender);
            for (p, size, mark) in kept {
                unsafe {
                    assert!(std::slice::from_raw_parts(p as *const u8, size).iter().all(|&b| b == mark), "a block was overwritten");
                    a.dealloc(p as *mut u8, layout(size, 8));
                }
            }
        });
    }
}
