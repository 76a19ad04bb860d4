import _AutoCodingCommands

AutoCodingCommand.main()
