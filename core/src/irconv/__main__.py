from irconv.cli.main import entry

entry()
