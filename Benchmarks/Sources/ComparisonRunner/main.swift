Bench.main()
