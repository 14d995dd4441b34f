from infracards.cli import main

raise SystemExit(main())
