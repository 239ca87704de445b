//! The three inputs of a 3-way merge.

use std::fmt;

/// Which input a thing comes from. `Ours` is git's `%A` (the current branch), `Theirs` is `%B`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Side {
    Base,
    Ours,
    Theirs,
}

impl Side {
    /// The other changed side; `Base` has none and maps to itself.
    pub fn other(self) -> Side {
        match self {
            Side::Ours => Side::Theirs,
            Side::Theirs => Side::Ours,
            Side::Base => Side::Base,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Side::Base => "base",
            Side::Ours => "ours",
            Side::Theirs => "theirs",
        }
    }

    /// The name as a possessive, for notes ("ours' tiles").
    pub fn possessive(self) -> &'static str {
        match self {
            Side::Base => "base's",
            Side::Ours => "ours'",
            Side::Theirs => "theirs'",
        }
    }
}

impl fmt::Display for Side {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// One thing per input.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Sides<T> {
    pub base: T,
    pub ours: T,
    pub theirs: T,
}

impl<T> Sides<T> {
    pub fn new(base: T, ours: T, theirs: T) -> Self {
        Sides { base, ours, theirs }
    }

    pub fn get(&self, side: Side) -> &T {
        match side {
            Side::Base => &self.base,
            Side::Ours => &self.ours,
            Side::Theirs => &self.theirs,
        }
    }

    pub fn get_mut(&mut self, side: Side) -> &mut T {
        match side {
            Side::Base => &mut self.base,
            Side::Ours => &mut self.ours,
            Side::Theirs => &mut self.theirs,
        }
    }

    pub fn map<U>(self, mut f: impl FnMut(Side, T) -> U) -> Sides<U> {
        Sides { base: f(Side::Base, self.base), ours: f(Side::Ours, self.ours), theirs: f(Side::Theirs, self.theirs) }
    }

    pub fn as_ref(&self) -> Sides<&T> {
        Sides { base: &self.base, ours: &self.ours, theirs: &self.theirs }
    }

    /// Swap ours and theirs.
    pub fn swapped(self) -> Self {
        Sides { base: self.base, ours: self.theirs, theirs: self.ours }
    }

    /// The two versions other than `side`'s, in side order (base, ours, theirs).
    pub fn others(&self, side: Side) -> [T; 2]
    where
        T: Copy,
    {
        match side {
            Side::Base => [self.ours, self.theirs],
            Side::Ours => [self.base, self.theirs],
            Side::Theirs => [self.base, self.ours],
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_others_of_a_side_are_the_two_remaining_versions_in_side_order() {
        let sides = Sides::new("b", "o", "t");
        assert_eq!(sides.others(Side::Base), ["o", "t"]);
        assert_eq!(sides.others(Side::Ours), ["b", "t"]);
        assert_eq!(sides.others(Side::Theirs), ["b", "o"]);
    }
}
