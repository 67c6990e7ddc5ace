function F = sompca_transform(model, X, varargin)
%SOMPCA_TRANSFORM  Project samples to a sompca model's features.
%   F = SOMPCA_TRANSFORM(MODEL, X) gives the M x P double matrix of the
%   features of the samples in X, an I_1 x ... x I_N x M array (samples
%   last; one sample may be given as an I_1 x ... x I_N array) of the
%   model's Shape, of any real numeric class or logical: the same numbers
%   as Python's model.transform of the same samples.
%
%   F = SOMPCA_TRANSFORM(MODEL, X, 'SamplesFirst', true) reads X as
%   M x I_1 x ... x I_N.
%
%   Example:
%     model = sompca_fit(randn(8, 6, 100), 5);
%     F = sompca_transform(model, randn(8, 6, 20));   % 20 x 5
%
%   See also SOMPCA_FIT, SOMPCA_LOAD.
  if nargin < 2
    error('sompca:badInput', 'sompca_transform: usage: F = sompca_transform(model, X)');
  end
  values = sompca_options({'samplesfirst'}, {false}, varargin, 'sompca_transform');
  bytes = sompca_file_bytes(model, 'sompca_transform');
  Xc = sompca_samples(X, model.Shape, values{1}, 'sompca_transform');
  F = sompca_mex('transform', bytes, Xc);
end
