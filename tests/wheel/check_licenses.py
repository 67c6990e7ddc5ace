"""check_licenses.py WHEEL LICENSE: the wheel carries the licences of everything in it.

- .dist-info/licenses/LICENSE is the repository's LICENSE, byte for byte, and METADATA names BSD-3-Clause;
- every library in sompca.libs/ (what auditwheel grafted) has a line in licenses/third-party/THIRD-PARTY.txt
  naming a licence file that is in the wheel and not empty; libhdf5's is HDF5's copyright notice;
- the Go runtime and the Go modules linked into libsompca.so (gonum) have theirs.
"""

import sys
import zipfile

wheel, license_path = sys.argv[1], sys.argv[2]
with zipfile.ZipFile(wheel) as z:
    names = set(z.namelist())
    info = next(n.split("/")[0] for n in names if n.split("/")[0].endswith(".dist-info"))
    licenses = f"{info}/licenses/"
    with open(license_path, "rb") as f:
        assert z.read(licenses + "LICENSE") == f.read(), "the wheel's LICENSE is not the repository's"
    metadata = z.read(f"{info}/METADATA").decode()
    assert "License-Expression: BSD-3-Clause" in metadata, "METADATA does not name BSD-3-Clause"
    assert "License-File: LICENSE" in metadata
    record = z.read(f"{info}/RECORD").decode()
    index = z.read(licenses + "third-party/THIRD-PARTY.txt").decode()
    covered = {}
    for line in index.splitlines()[2:]:
        what, _, file = line.rpartition(" ")
        covered[what.strip().split(" ")[0]] = file
    libs = sorted(n for n in names if n.startswith("sompca.libs/"))
    assert libs, "the wheel has no sompca.libs/: auditwheel grafted nothing?"
    for lib in libs:
        file = covered.get(lib)
        assert file, f"{lib} has no licence in THIRD-PARTY.txt"
        body = z.read(licenses + "third-party/" + file)
        assert body.strip(), f"{file} (for {lib}) is empty"
        assert f"{licenses}third-party/{file}," in record, f"{file} is not in RECORD"
    hdf5 = [lib for lib in libs if lib.startswith("sompca.libs/libhdf5_serial-")]
    assert hdf5, "no libhdf5 in sompca.libs"
    assert b"HDF5 (Hierarchical Data Format 5) Software Library" in z.read(licenses + "third-party/" + covered[hdf5[0]])
    for module in ("Go", "gonum.org/v1/gonum", "gonum.org/v1/hdf5"):
        assert module in covered, f"no licence for {module}"
        text = z.read(licenses + "third-party/" + covered[module])
        assert b"Redistribution and use in source and binary forms" in text, f"{covered[module]} is not BSD-style"
print(f"check_licenses: LICENSE and {len(covered)} third-party licences ({len(libs)} grafted libraries) in the wheel")
