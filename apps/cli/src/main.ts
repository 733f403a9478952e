// The `trove` command-line client (issue 17): placeholder until the commands land.
process.stderr.write('trove: not implemented yet\n');
process.exitCode = 1;
