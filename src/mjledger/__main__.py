"""``python -m mjledger`` runs the command line as the console script does (mjledger/_console.py),
under the name click gives it."""

from mjledger._console import run

if __package__:  # ``python -m mjledger``, as click names the program then
    run("python -m mjledger")
else:  # this file run by its path: click names the program after the file
    from mjledger.cli.main import main

    main()
