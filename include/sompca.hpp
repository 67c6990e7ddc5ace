/*
 * sompca.hpp - a header-only C++17 wrapper of sompca.h.
 *
 * sompca::model owns a sompca_model (std::unique_ptr with
 * sompca_model_free as its deleter: moved, never copied; a moved-from or
 * default model holds none, and using it throws SOMPCA_ENOTFITTED). Every
 * failing call throws sompca::error, which carries the status code and
 * the library's message (sompca_last_error). Arrays are std::vector or
 * caller pointers, laid out as sompca.h says (samples first, row-major).
 *
 *     sompca_options opts = sompca::default_options();
 *     opts.n_components = 4;
 *     auto model = sompca::model::fit(data.data(), n, {32, 22}, &opts);
 *     std::vector<double> z = model.transform(data.data(), n);
 *     std::vector<unsigned char> bytes = model.serialize();
 *     auto copy = sompca::model::deserialize(bytes);
 *
 * The rules of sompca.h apply (threading, fork); link with -lsompca.
 */
#ifndef SOMPCA_HPP
#define SOMPCA_HPP

#include <cstddef>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "sompca.h"

namespace sompca {

/* A failed call: status() is its SOMPCA_E* code, what() the library's message. */
class error : public std::runtime_error {
public:
	error(int status, const std::string &message) : std::runtime_error(message), status_(status) {}
	int status() const noexcept { return status_; }

private:
	int status_;
};

namespace detail {

inline void check(int status)
{
	if (status != SOMPCA_OK)
		throw error(status, sompca_last_error());
}

struct model_free {
	void operator()(sompca_model *model) const noexcept { sompca_model_free(model); }
};

/* The SOMPCA_* element type of T. */
template <class T> struct dtype;
template <> struct dtype<double> { static constexpr int value = SOMPCA_FLOAT64; };
template <> struct dtype<float> { static constexpr int value = SOMPCA_FLOAT32; };
template <> struct dtype<std::uint8_t> { static constexpr int value = SOMPCA_UINT8; };
template <> struct dtype<std::uint16_t> { static constexpr int value = SOMPCA_UINT16; };
template <> struct dtype<std::int16_t> { static constexpr int value = SOMPCA_INT16; };

} // namespace detail

/* The options of sompca_options_init, to change before a fit. */
inline sompca_options default_options()
{
	sompca_options opts;
	sompca_options_init(&opts);
	return opts;
}

class model {
public:
	model() = default;
	/* Takes ownership of a model made by the C API (NULL: none). */
	explicit model(sompca_model *raw) noexcept : p_(raw) {}

	/* sompca_fit_strided: n_samples samples of the given shape, sample_stride
	 * elements apart (0: consecutive), of double, float, uint8_t,
	 * uint16_t or int16_t; opts NULL for the defaults. */
	template <class T>
	static model fit(const T *data, std::size_t n_samples, const std::vector<std::size_t> &shape,
	                 const sompca_options *opts = nullptr, std::size_t sample_stride = 0)
	{
		sompca_model *out = nullptr;
		detail::check(sompca_fit_strided(&out, data, detail::dtype<T>::value, n_samples, sample_stride,
		                                 shape.size(), shape.data(), opts));
		return model(out);
	}

	/* sompca_fit_hdf5. */
	static model fit_hdf5(const std::string &path, const std::string &dataset,
	                      int layout = SOMPCA_LAYOUT_SAMPLES_FIRST, const sompca_options *opts = nullptr)
	{
		sompca_model *out = nullptr;
		detail::check(sompca_fit_hdf5(&out, path.c_str(), dataset.c_str(), layout, opts));
		return model(out);
	}

	/* sompca_model_load. */
	static model load(const std::string &path)
	{
		sompca_model *out = nullptr;
		detail::check(sompca_model_load(&out, path.c_str()));
		return model(out);
	}

	/* sompca_model_deserialize. */
	static model deserialize(const void *buf, std::size_t len)
	{
		sompca_model *out = nullptr;
		detail::check(sompca_model_deserialize(&out, buf, len));
		return model(out);
	}

	static model deserialize(const std::vector<unsigned char> &bytes)
	{
		return deserialize(bytes.data(), bytes.size());
	}

	/* sompca_model_save. */
	void save(const std::string &path) const { detail::check(sompca_model_save(get(), path.c_str())); }

	/* sompca_model_serialize: the model file's bytes. */
	std::vector<unsigned char> serialize() const
	{
		std::size_t len = 0;
		detail::check(sompca_model_serialize(get(), nullptr, 0, &len));
		std::vector<unsigned char> bytes(len);
		detail::check(sompca_model_serialize(get(), bytes.data(), bytes.size(), &len));
		bytes.resize(len);
		return bytes;
	}

	/* sompca_transform_strided: n_samples x P features, sample-major. */
	template <class T>
	std::vector<double> transform(const T *data, std::size_t n_samples, std::size_t sample_stride = 0) const
	{
		std::size_t need = 0;
		detail::check(sompca_transform_size(get(), n_samples, &need));
		std::vector<double> features(need);
		detail::check(sompca_transform_strided(get(), features.data(), features.size(), data,
		                                       detail::dtype<T>::value, n_samples, sample_stride));
		return features;
	}

	/* sompca_inverse_transform: n_samples samples from n_samples x P features. */
	std::vector<double> inverse_transform(const double *features, std::size_t n_samples) const
	{
		std::vector<double> samples(n_samples * sample_size());
		detail::check(sompca_inverse_transform(get(), samples.data(), samples.size(), features, n_samples));
		return samples;
	}

	std::size_t n_components() const { return value(sompca_model_n_components); }
	std::size_t n_samples() const { return value(sompca_model_n_samples); }

	/* The sample shape I_0, ..., I_{N-1}. */
	std::vector<std::size_t> shape() const
	{
		std::vector<std::size_t> dims(value(sompca_model_order));
		detail::check(sompca_model_shape(get(), dims.data(), dims.size()));
		return dims;
	}

	/* Elements of a sample, I_0 * ... * I_{N-1}. */
	std::size_t sample_size() const
	{
		std::size_t size = 1;
		for (std::size_t d : shape())
			size *= d;
		return size;
	}

	std::vector<double> mean() const { return doubles(sompca_model_mean, sample_size()); }
	std::vector<double> variance() const { return doubles(sompca_model_variance, n_components()); }
	std::vector<double> variance_ratio() const { return doubles(sompca_model_variance_ratio, n_components()); }

	/* The C handle, still owned by this model (NULL when none). */
	sompca_model *get() const noexcept { return p_.get(); }
	/* Gives up ownership of the C handle. */
	sompca_model *release() noexcept { return p_.release(); }
	explicit operator bool() const noexcept { return p_ != nullptr; }

private:
	std::size_t value(int (*accessor)(const sompca_model *, std::size_t *)) const
	{
		std::size_t v = 0;
		detail::check(accessor(get(), &v));
		return v;
	}

	std::vector<double> doubles(int (*accessor)(const sompca_model *, double *, std::size_t), std::size_t n) const
	{
		std::vector<double> v(n);
		detail::check(accessor(get(), v.data(), v.size()));
		return v;
	}

	std::unique_ptr<sompca_model, detail::model_free> p_;
};

} // namespace sompca

#endif /* SOMPCA_HPP */
