"""The judge's and organiser's side of Nakk: the `nakk` command."""
