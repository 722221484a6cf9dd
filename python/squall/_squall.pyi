"""Type hints of the extension module (see ``src/lib.rs``); use the
``squall`` package's functions, which wrap these."""

from typing import Any, Dict, List, Optional, Sequence, Tuple

__version__: str

def run(
    name: str,
    text: str,
    set: Sequence[str],
    variants: Sequence[str],
    seed: Optional[int] = None,
    replications: Optional[int] = None,
    jobs: Optional[int] = None,
) -> Dict[str, Any]: ...
def sweep(
    name: str,
    text: str,
    vary: Sequence[Tuple[str, Sequence[str]]],
    set: Sequence[str],
    seed: Optional[int] = None,
    replications: Optional[int] = None,
    jobs: Optional[int] = None,
) -> Dict[str, List[Any]]: ...
