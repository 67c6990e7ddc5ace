// test_sompca.cpp - the C++ wrapper include/sompca.hpp: a model fitted,
// round-tripped through memory (serialize, deserialize) and a file, its
// features equal to the C API's bit for bit (the wrapper adds no
// arithmetic), the inverse transform an inverse on the features (an
// identity: transform(inverse_transform(z)) = z), and failures thrown as
// sompca::error with the C status and message.
//
// Usage: test_sompca TMPDIR
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <string>
#include <utility>
#include <vector>

#include "sompca.hpp"

static long passed;

#define CHECK(cond)                                                                      \
	do {                                                                             \
		if (!(cond)) {                                                           \
			std::fprintf(stderr, "%s:%d: check failed: %s\n%ld passed, 1 failed\n", \
			             __FILE__, __LINE__, #cond, passed);                     \
			std::exit(1);                                                    \
		}                                                                        \
		passed++;                                                                \
	} while (0)

// Runs f, which must throw sompca::error with status and a message naming function.
template <class F> static void check_throws(F f, int status, const char *function)
{
	try {
		f();
	} catch (const sompca::error &err) {
		CHECK(err.status() == status);
		CHECK(std::strstr(err.what(), function) != nullptr);
		return;
	}
	CHECK(!"no sompca::error thrown");
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		std::fprintf(stderr, "usage: test_sompca TMPDIR\n");
		return 2;
	}
	const std::string path = std::string(argv[1]) + "/cpp-model.h5";
	const std::vector<std::size_t> shape = {5, 4, 3};
	const std::size_t n = 30, size = 5 * 4 * 3;
	// Integers 0..255 from a fixed linear congruential sequence, as uint16 and double.
	std::vector<std::uint16_t> u16(n * size);
	std::vector<double> f64(n * size);
	std::uint32_t state = 12345;
	for (std::size_t i = 0; i < n * size; i++) {
		state = state * 1664525u + 1013904223u;
		u16[i] = static_cast<std::uint16_t>(state >> 24);
		f64[i] = u16[i];
	}

	sompca_options opts = sompca::default_options();
	opts.n_components = 4;
	sompca::model model = sompca::model::fit(f64.data(), n, shape, &opts);
	CHECK(model && model.n_components() == 4 && model.n_samples() == n && model.shape() == shape);
	std::vector<double> z = model.transform(f64.data(), n);
	CHECK(z.size() == n * 4);

	// The C API's features, bit for bit; uint16 input gives the same ones.
	{
		sompca_model *raw = nullptr;
		CHECK(sompca_fit(&raw, f64.data(), SOMPCA_FLOAT64, n, 3, shape.data(), &opts) == SOMPCA_OK);
		std::vector<double> want(n * 4);
		CHECK(sompca_transform(raw, want.data(), want.size(), f64.data(), SOMPCA_FLOAT64, n) == SOMPCA_OK);
		sompca_model_free(raw);
		CHECK(std::memcmp(want.data(), z.data(), z.size() * sizeof(double)) == 0);
		sompca::model narrow = sompca::model::fit(u16.data(), n, shape, &opts);
		std::vector<double> zu = narrow.transform(u16.data(), n);
		CHECK(std::memcmp(zu.data(), z.data(), z.size() * sizeof(double)) == 0);
	}

	// Through memory: the same bytes again, the same features.
	std::vector<unsigned char> bytes = model.serialize();
	CHECK(bytes.size() > 8 && std::memcmp(bytes.data(), "\x89HDF\r\n\x1a\n", 8) == 0);
	sompca::model back = sompca::model::deserialize(bytes);
	CHECK(back.serialize() == bytes);
	std::vector<double> zb = back.transform(f64.data(), n);
	CHECK(std::memcmp(zb.data(), z.data(), z.size() * sizeof(double)) == 0);

	// Through a file: the file holds the serialized bytes.
	model.save(path);
	{
		std::ifstream in(path, std::ios::binary);
		std::vector<unsigned char> file((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
		CHECK(file == bytes);
	}
	sompca::model loaded = sompca::model::load(path);
	CHECK(loaded.transform(f64.data(), n) == z);
	std::remove(path.c_str());

	// The inverse transform: transform(inverse_transform(z)) = z (A^T A (A^T A)^+ = I, full rank).
	std::vector<double> x = back.inverse_transform(z.data(), n);
	CHECK(x.size() == n * size);
	std::vector<double> again = back.transform(x.data(), n);
	double worst = 0, scale = 0;
	for (std::size_t i = 0; i < z.size(); i++) {
		worst = std::fmax(worst, std::fabs(again[i] - z[i]));
		scale = std::fmax(scale, std::fabs(z[i]));
	}
	CHECK(worst <= 1e-9 * scale);
	CHECK(back.mean().size() == size && back.variance().size() == 4);

	// A strided transform: every other sample of the data.
	std::vector<double> half = model.transform(f64.data(), n / 2, 2 * size);
	for (std::size_t s = 0; s < n / 2; s++)
		CHECK(std::memcmp(&half[s * 4], &z[2 * s * 4], 4 * sizeof(double)) == 0);

	// Ownership: a moved-from model holds nothing and throws.
	sompca::model moved = std::move(back);
	CHECK(moved && !back);
	check_throws([&] { back.transform(f64.data(), n); }, SOMPCA_ENOTFITTED, "sompca_transform_size");
	sompca_model *raw = moved.release();
	CHECK(raw != nullptr && !moved);
	sompca::model adopted(raw);
	CHECK(adopted.n_components() == 4);

	// Failures carry the C status and message.
	check_throws([&] { sompca::model::fit(f64.data(), n, {5, 0, 3}, &opts); }, SOMPCA_ESHAPE, "sompca_fit_strided");
	check_throws([&] { sompca::model::deserialize(bytes.data(), bytes.size() / 2); }, SOMPCA_EFILE,
	             "sompca_model_deserialize");
	check_throws([&] { sompca::model::load(path); }, SOMPCA_ENOTFOUND, "sompca_model_load");
	std::vector<double> bad(4, NAN);
	check_throws([&] { adopted.inverse_transform(bad.data(), 1); }, SOMPCA_EDATA, "sompca_inverse_transform");

	std::printf("%ld passed, 0 failed\n", passed);
	return 0;
}
