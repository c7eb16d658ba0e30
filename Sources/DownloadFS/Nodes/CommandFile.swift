/// A file whose writes are commands, not content (`queue/new`, a drop-in
/// file, a `ctl`): `O_TRUNC`, as in `echo URL > queue/new`, asks to cut it
/// to size 0, which is accepted and changes nothing. Any other size change
/// is EACCES everywhere (R6).
protocol CommandFile: Node {}
