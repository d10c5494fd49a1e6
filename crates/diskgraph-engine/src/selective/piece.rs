//! What a round hands the algorithm: [`Piece`]s of the active vertices' adjacency lists, taken
//! by a [`Compute`] (Graphene's `Compute`, with a state per worker task).

/// A slice of one vertex's adjacency list, as delivered by a round.
#[derive(Clone, Copy, Debug)]
pub struct Piece<'a> {
    /// Position of `targets[0]` in the vertex's list.
    pub start: u64,
    /// Length of the vertex's whole list.
    pub degree: u64,
    /// Neighbour IDs (range-checked), ascending within the list.
    pub targets: &'a [u32],
    /// Weights parallel to `targets`, when the round asked for them and the graph has them.
    pub weights: Option<&'a [f32]>,
}

impl Piece<'_> {
    /// Whether this piece is the whole list.
    pub fn is_whole(&self) -> bool {
        self.start == 0 && self.targets.len() as u64 == self.degree
    }

    /// Weight of `targets[k]` (1 when unweighted).
    #[inline]
    pub fn weight(&self, k: usize) -> f32 {
        self.weights.map_or(1.0, |w| w[k])
    }
}

/// The algorithm's side of a round. Every task of a round — a completed read, or a share of the
/// lists held in memory — makes a state with [`init`](Self::init), hands it each of its pieces
/// through [`compute`](Self::compute), and ends it with [`flush`](Self::flush); tasks run on any
/// thread, several at once.
pub(crate) trait Compute: Sync {
    /// A task's state (e.g. a [`LocalFrontier`](super::LocalFrontier) or a local sum).
    type State;

    /// Makes a task's state.
    fn init(&self) -> Self::State;

    /// Computes on piece `piece` of `v`'s list.
    fn compute(&self, state: &mut Self::State, v: u32, piece: Piece<'_>);

    /// Ends a task's state.
    fn flush(&self, state: Self::State);
}

/// A [`Compute`] made of three closures, as
/// [`for_each_piece_with`](super::SelectiveGraph::for_each_piece_with) takes them.
pub(crate) struct Closures<I, C, F> {
    init: I,
    compute: C,
    flush: F,
}

impl<I, C, F> Closures<I, C, F> {
    /// The [`Compute`] whose `init`, `compute` and `flush` are these closures.
    pub(crate) fn new<L>(init: I, compute: C, flush: F) -> Self
    where
        I: Fn() -> L + Sync,
        C: Fn(&mut L, u32, Piece<'_>) + Sync,
        F: Fn(L) + Sync,
    {
        Closures { init, compute, flush }
    }
}

impl<L, I, C, F> Compute for Closures<I, C, F>
where
    I: Fn() -> L + Sync,
    C: Fn(&mut L, u32, Piece<'_>) + Sync,
    F: Fn(L) + Sync,
{
    type State = L;

    #[inline]
    fn init(&self) -> L {
        (self.init)()
    }

    #[inline]
    fn compute(&self, state: &mut L, v: u32, piece: Piece<'_>) {
        (self.compute)(state, v, piece)
    }

    #[inline]
    fn flush(&self, state: L) {
        (self.flush)(state)
    }
}
