//! Formulae over a finite value set, and their SAT-backed decision procedures (issue 3).
