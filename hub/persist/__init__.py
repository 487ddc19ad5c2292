"""What survives a crash: the journal and its replay, the store writer, storage checks."""
