//! The diameter verifier: the answer is the hop distances from the vertex whose eccentricity is
//! the bound (`from`), so they are checked as a BFS from it by Graph500's rules (see
//! [`bfs`](crate::bfs)'s verifier), and the bound must be their largest value, reached at `to`:
//! then the bound is a true eccentricity, which no diameter is below.

use crate::bfs::verify::check_levels;
use crate::verification::{Check, Verified};
use crate::AlgoError;

/// Checks a diameter answer.
pub(crate) fn verify(check: &Check) -> Result<Verified, AlgoError> {
    let vertex = |name: &str| -> Result<u32, AlgoError> {
        let id = check
            .setting(name)
            .and_then(|v| v.as_u64())
            .ok_or_else(|| check.wrong(format!("the run recorded no {name} vertex")))?;
        check
            .resolver()
            .get(id)
            .ok_or_else(|| check.wrong(format!("the recorded {name} vertex {id} is no vertex")))
    };
    let (from, to) = (vertex("from")?, vertex("to")?);
    let bound = check.number_setting("bound")?;
    let levels = check.signed()?;
    let (_, depth) = check_levels(check, from, levels)?;
    if depth as f64 != bound || levels[to as usize] != depth {
        return Err(check.wrong(format!(
            "the bound is {bound}, yet the distances from {} go up to {depth}, and {} is at {}",
            check.label(from),
            check.label(to),
            levels[to as usize]
        )));
    }
    Ok(Verified(format!(
        "the bound {depth} is the eccentricity of {}: its hop distances by Graph500's BFS rules, the largest at {} ({})",
        check.label(from),
        check.label(to),
        check.passes_made()
    )))
}
