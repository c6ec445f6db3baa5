package cli

import "io"

func convertCmd(args []string, stdout, stderr io.Writer) int { return 2 }
func fmtCmd(args []string, stdout, stderr io.Writer) int     { return 2 }
