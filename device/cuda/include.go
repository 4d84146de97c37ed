package cuda

import (
	"bufio"
	"os"
	"path/filepath"
	"strings"
)

// includeMarker is a header every CUDA toolkit's include folder holds and NVRTC 12 and 13
// do not carry built in: a kernel on float16 arrays includes it.
const includeMarker = "cuda_fp16.h"

// toolkitInclude is the include folder of the CUDA toolkit that NVRTC (loaded from path)
// belongs to, which nvcc always searches and NVRTC never does: found beside the library
// (lib64/../include, targets/<arch>/lib/../include, and pip's nvidia/cuda_runtime/include
// beside nvidia/cuda_nvrtc/lib), then in the toolkits named by CUDA_HOME and CUDA_PATH,
// /usr/local/cuda and /usr/include (Debian's nvidia-cuda-toolkit). A folder counts when it
// holds cuda_fp16.h; "" when none does. maps is /proc/self/maps, where the dynamic
// loader's own choice is read when path is a bare name.
func toolkitInclude(path string, getenv func(string) string, maps string) string {
	for _, dir := range includeCandidates(path, getenv, maps) {
		if st, err := os.Stat(filepath.Join(dir, includeMarker)); err == nil && !st.IsDir() {
			return dir
		}
	}
	return ""
}

func includeCandidates(path string, getenv func(string) string, maps string) []string {
	var dirs []string
	if lib := loadedPath(path, maps); lib != "" {
		if real, err := filepath.EvalSymlinks(lib); err == nil {
			lib = real
		}
		d := filepath.Dir(lib)
		dirs = append(dirs,
			filepath.Join(d, "..", "include"),
			filepath.Join(d, "..", "..", "include"),
			filepath.Join(d, "..", "..", "cuda_runtime", "include"))
	}
	for _, h := range []string{getenv(homeEnv), getenv(pathEnv), toolkit} {
		if h == "" {
			continue
		}
		dirs = append(dirs, filepath.Join(h, "include"))
		for _, t := range []string{"x86_64-linux", "sbsa-linux"} {
			dirs = append(dirs, filepath.Join(h, "targets", t, "include"))
		}
	}
	dirs = append(dirs, "/usr/include")
	for i := range dirs {
		dirs[i] = filepath.Clean(dirs[i])
	}
	return dirs
}

// loadedPath is the file the dynamic loader mapped for the library opened as path: path
// itself when it is absolute, else the mapped file of maps (the text of /proc/self/maps)
// whose name is path's base or continues it after a dot (libnvrtc.so.13 maps
// libnvrtc.so.13.0.88); "" when none is found.
func loadedPath(path, maps string) string {
	if filepath.IsAbs(path) {
		return path
	}
	base := filepath.Base(path)
	sc := bufio.NewScanner(strings.NewReader(maps))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) < 6 {
			continue
		}
		file := strings.Join(f[5:], " ")
		name := filepath.Base(file)
		if filepath.IsAbs(file) && strings.HasPrefix(name, base) && (len(name) == len(base) || name[len(base)] == '.') {
			return file
		}
	}
	return ""
}

// selfMaps is this process's memory map, "" where there is none to read.
func selfMaps() string {
	b, err := os.ReadFile("/proc/self/maps")
	if err != nil {
		return ""
	}
	return string(b)
}
