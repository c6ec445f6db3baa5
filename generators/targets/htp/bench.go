package htp

import (
	"os"
	"path/filepath"
)

// StandInSDK lays out, under dir, empty stand-ins of what the x86
// build's preflight checks for (the QNN headers' folder with the one
// header it looks for, the Hexagon SDK's folders), and returns the
// environment that points a build at them and at the compiler cxx, which
// the descriptor takes from X86_CXX: the bench measures a no-op build
// with it where no SDK is installed.
func StandInSDK(dir, cxx string) ([]string, error) {
	for _, p := range []string{"qnn/include/QNN", "hexagon/hexagon-sdk-6.0.0/incs", "hexagon/hexagon-sdk-6.0.0/tools/HEXAGON_Tools/8.8.02/Tools/libnative/include"} {
		if err := os.MkdirAll(filepath.Join(dir, p), 0o755); err != nil {
			return nil, err
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "qnn/include/QNN/QnnOpPackage.h"), nil, 0o644); err != nil {
		return nil, err
	}
	return []string{"QNN_SDK_ROOT=" + filepath.Join(dir, "qnn"), "HEXAGON_SDK_ROOT=" + filepath.Join(dir, "hexagon/hexagon-sdk-6.0.0"), "X86_CXX=" + cxx}, nil
}
