package spec

import (
	"bytes"
	"encoding/binary"
	"math"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// numpyInt32 is what numpy.save writes for np.arange(6, dtype='<i4').reshape(2, 3): the
// NPY 1.0 magic and version, a little-endian header length of 118, the header dict padded
// with spaces so that the data start at byte 128, a newline, then the elements.
var numpyInt32 = "\x93NUMPY\x01\x00\x76\x00" +
	"{'descr': '<i4', 'fortran_order': False, 'shape': (2, 3), }" + strings.Repeat(" ", 58) + "\n" +
	"\x00\x00\x00\x00\x01\x00\x00\x00\x02\x00\x00\x00\x03\x00\x00\x00\x04\x00\x00\x00\x05\x00\x00\x00"

func TestReadNumpyWrittenFile(t *testing.T) {
	if len(numpyInt32) != 128+24 {
		t.Fatalf("fixture is %d bytes", len(numpyInt32))
	}
	a, err := ReadNPY(strings.NewReader(numpyInt32))
	if err != nil {
		t.Fatal(err)
	}
	if a.Type != "int32" || !reflect.DeepEqual(a.Shape, []int{2, 3}) || a.Len() != 6 {
		t.Fatalf("read %s %v", a.Type, a.Shape)
	}
	v, err := a.Float64s()
	if err != nil || !slices.Equal(v, []float64{0, 1, 2, 3, 4, 5}) {
		t.Errorf("values %v %v", v, err)
	}
	// Writing it back gives numpy's bytes exactly.
	var buf bytes.Buffer
	if err := WriteNPY(&buf, a); err != nil {
		t.Fatal(err)
	}
	if buf.String() != numpyInt32 {
		t.Errorf("written\n%q\nnumpy writes\n%q", buf.String(), numpyInt32)
	}
}

func TestReadBigEndianAndVersion2(t *testing.T) {
	dict := "{'descr': '>f8', 'fortran_order': False, 'shape': (3,), }"
	data := []byte{}
	for _, f := range []float64{1.5, -2, 1e300} {
		data = binary.BigEndian.AppendUint64(data, math.Float64bits(f))
	}
	v1 := "\x93NUMPY\x01\x00\x76\x00" + dict + strings.Repeat(" ", 60) + "\n" + string(data)
	hdr := dict + strings.Repeat(" ", 3) + "\n"
	v2 := "\x93NUMPY\x02\x00" + string(binary.LittleEndian.AppendUint32(nil, uint32(len(hdr)))) + hdr + string(data)
	for name, file := range map[string]string{"1.0": v1, "2.0": v2} {
		a, err := ReadNPY(strings.NewReader(file))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		v, _ := a.Float64s()
		if a.Type != "float64" || !slices.Equal(v, []float64{1.5, -2, 1e300}) {
			t.Errorf("%s: %s %v", name, a.Type, v)
		}
	}
}

func TestNPYRoundTrip(t *testing.T) {
	for _, typ := range typeNames() {
		for _, shape := range [][]int{{}, {5}, {2, 3}, {0}, {2, 1, 3}} {
			et, _ := lookupType(typ)
			n := 1
			for _, d := range shape {
				n *= d
			}
			a := &Array{Type: typ, Shape: shape, Data: make([]byte, n*et.size)}
			for i := range n {
				et.put(a.Data[i*et.size:], float64(i%100))
			}
			var buf bytes.Buffer
			if err := WriteNPY(&buf, a); err != nil {
				t.Fatal(err)
			}
			if hdr := buf.Bytes(); (len(hdr)-len(a.Data))%64 != 0 || hdr[len(hdr)-len(a.Data)-1] != '\n' {
				t.Errorf("%s %v: header of %d bytes is not 64-aligned and newline-terminated", typ, shape, len(hdr)-len(a.Data))
			}
			b, err := ReadNPY(&buf)
			if err != nil {
				t.Fatalf("%s %v: %v", typ, shape, err)
			}
			if b.Type != a.Type || !reflect.DeepEqual(b.Shape, a.Shape) || !bytes.Equal(b.Data, a.Data) {
				t.Errorf("%s %v: read back %s %v", typ, shape, b.Type, b.Shape)
			}
		}
	}
}

// TestReadHalfNPY reads float16 files in both byte orders, as numpy.save writes them from
// a float16 array (dtype '<f2', or '>f2' after byteswap).
func TestReadHalfNPY(t *testing.T) {
	header := func(dict string) string {
		return "\x93NUMPY\x01\x00" + string(binary.LittleEndian.AppendUint16(nil, uint16(len(dict)+1))) + dict + "\n"
	}
	for _, tt := range []struct{ descr, data string }{
		{"<f2", "\x00\x3c\x00\xc0\x66\x2e\xff\x7b\x01\x00"},
		{">f2", "\x3c\x00\xc0\x00\x2e\x66\x7b\xff\x00\x01"},
	} {
		a, err := ReadNPY(strings.NewReader(header("{'descr': '"+tt.descr+"', 'fortran_order': False, 'shape': (5,), }") + tt.data))
		if err != nil {
			t.Fatalf("%s: %v", tt.descr, err)
		}
		v, err := a.Float64s()
		if a.Type != "float16" || err != nil || !slices.Equal(v, []float64{1, -2, 0.0999755859375, 65504, 0x1p-24}) {
			t.Errorf("%s: %s %v %v", tt.descr, a.Type, v, err)
		}
	}
}

func TestNPYErrorsAreClear(t *testing.T) {
	header := func(dict string) string {
		return "\x93NUMPY\x01\x00" + string(binary.LittleEndian.AppendUint16(nil, uint16(len(dict)+1))) + dict + "\n"
	}
	tests := []struct {
		name, file, want string
	}{
		{"Fortran order", header("{'descr': '<f4', 'fortran_order': True, 'shape': (2, 2), }") + strings.Repeat("\x00", 16), "Fortran-order arrays are not supported"},
		{"complex", header("{'descr': '<c16', 'fortran_order': False, 'shape': (1,), }") + strings.Repeat("\x00", 16), `unsupported dtype "<c16"`},
		{"bool", header("{'descr': '|b1', 'fortran_order': False, 'shape': (1,), }") + "\x01", `unsupported dtype "|b1"`},
		{"structured", header("{'descr': [('a', '<f4')], 'fortran_order': False, 'shape': (1,), }"), "structured dtypes are not supported"},
		{"truncated data", header("{'descr': '<f4', 'fortran_order': False, 'shape': (4,), }") + "\x00\x00", "truncated data: 2 bytes"},
		{"huge shape, no data", header("{'descr': '<f8', 'fortran_order': False, 'shape': (100000000000,), }"), "truncated data"},
		{"overflowing shape", header("{'descr': '<f8', 'fortran_order': False, 'shape': (4611686018427387904, 4), }"), "too large"},
		{"no magic", "PK\x03\x04 a zip file", "not a .npy file"},
		{"version 4", "\x93NUMPY\x04\x00\x00\x00", "version 4.0 is not supported"},
		{"no shape", header("{'descr': '<f4', 'fortran_order': False, }"), "no 'shape'"},
		{"garbage header", header("descr = <f4"), "expected '{'"},
	}
	for _, tt := range tests {
		_, err := ReadNPY(strings.NewReader(tt.file))
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: got %v, want %q", tt.name, err, tt.want)
		}
	}
	if err := WriteNPY(&bytes.Buffer{}, &Array{Type: "complex64", Shape: []int{1}}); err == nil {
		t.Error("unknown type written")
	}
	if err := WriteNPY(&bytes.Buffer{}, &Array{Type: "float32", Shape: []int{2}, Data: make([]byte, 4)}); err == nil {
		t.Error("short data written")
	}
}

func FuzzReadNPY(f *testing.F) {
	f.Add([]byte(numpyInt32))
	f.Add([]byte("\x93NUMPY\x02\x00\x10\x00\x00\x00{'descr': '<f4'}"))
	f.Fuzz(func(t *testing.T, b []byte) {
		a, err := ReadNPY(bytes.NewReader(b))
		if err != nil {
			return
		}
		if _, err := a.Float64s(); err != nil {
			t.Fatalf("an array that was read does not convert: %v", err)
		}
		var buf bytes.Buffer
		if err := WriteNPY(&buf, a); err != nil {
			t.Fatalf("an array that was read does not write: %v", err)
		}
	})
}
