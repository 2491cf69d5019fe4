"""The judge's console (`nakk judge`): the evening in a browser, on the same modules as the CLI; may touch the judge's database."""
