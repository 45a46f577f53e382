"""`python -m calibrant` runs the command line."""

from .cli import main

main()
