function model = sompca_fit(X, P, varargin)
%SOMPCA_FIT  Fit SO-MPCA-RS (or another method of libsompca) to tensor samples.
%   MODEL = SOMPCA_FIT(X, P) learns P features from the samples in X, an
%   I_1 x ... x I_N x M array: M samples of shape I_1 x ... x I_N, samples
%   LAST, the convention of the MPCA/UMPCA toolboxes. X may be double,
%   single, uint8 or logical (read by the library in its own class) or any
%   other real numeric class (converted to double). P = [] or 0 takes the
%   method's maximum. The sample shape is size(X) without its last
%   dimension; MATLAB drops trailing dimensions of size 1, so M must be at
%   least 2 (as every method needs) and, with 'SamplesFirst', a last mode
%   of size 1 is lost: give such samples last.
%
%   MODEL = SOMPCA_FIT(X, P, Name, Value, ...) with
%     'Method'       'so-mpca-rs' (default), 'so-mpca', 'fo-mpca-rs',
%                    'fo-mpca', 'trod', 'trod-rs', 'umpca', 'umpca-rs',
%                    'pca', 'mpca' or 'csa' (case and '_' for '-' do not
%                    matter)
%     'Mode'         SO-MPCA's orthogonal mode, 1..N as MATLAB numbers
%                    dimensions (the paper's nu); [] (default) takes the
%                    largest mode, the first on ties; 'all' fits every mode
%                    and fuses the features
%     'MaxIter'      sweeps per EMP (MPCA, CSA: in total); default 20
%     'Tol'          stop an EMP's sweeps once the relative change of its
%                    captured variance is at most Tol; default 0 (run
%                    MaxIter sweeps)
%     'Threads'      worker threads; 0 (default) = all cores. The model
%                    does not depend on it
%     'Q'            MPCA and CSA: fraction of each mode's variance kept
%                    when choosing the mode ranks, in (0, 1]; default 0.97
%     'SamplesFirst' true: X is M x I_1 x ... x I_N (default false)
%     'Verbose'      true: print the fit's progress (default false)
%
%   MODEL is a struct: Method, Shape ([I_1 ... I_N]), NumComponents (P),
%   NumSamples, Mode (1..N, 'all', or [] for methods other than SO-MPCA),
%   Projections (1 x N cell of I_n x P matrices; for PCA one
%   prod(Shape) x P matrix over X(:) of a sample), Variance and
%   VarianceRatio (P x 1, features sorted by Variance), Mean (of size
%   Shape), History (P x 1 cell: each feature's objective at the start and
%   after each sweep), Iterations, ExtractionOrder (1-based), FeatureModes
%   (SO-MPCA: each feature's mode; 0 for the EMP that 'all' shares),
%   Ranks (MPCA, CSA), MaxIter, Tol, Q, and File, the library's model file
%   (uint8), which is what SOMPCA_TRANSFORM and SOMPCA_SAVE use. The model
%   and its file are the same as Python's sompca and the C API make from
%   the same samples: SOMPCA_SAVE writes a file they read.
%
%   Errors have identifiers: sompca:badInput, sompca:badData,
%   sompca:canceled (Ctrl-C), sompca:io, sompca:badFile, sompca:outOfMemory,
%   sompca:numerical, sompca:internal.
%
%   Example:
%     X = randn(8, 6, 100);                 % 100 samples of 8 x 6
%     model = sompca_fit(X, 5);
%     F = sompca_transform(model, X);       % 100 x 5
%
%   See also SOMPCA_TRANSFORM, SOMPCA_SAVE, SOMPCA_LOAD.
  if nargin < 2
    error('sompca:badInput', 'sompca_fit: usage: model = sompca_fit(X, P, Name, Value, ...)');
  end
  names = {'method', 'mode', 'maxiter', 'tol', 'threads', 'q', 'samplesfirst', 'verbose'};
  values = {'so-mpca-rs', [], 0, 0, 0, 0, false, false};
  values = sompca_options(names, values, varargin, 'sompca_fit');
  [method, mode, max_iter, tol, threads, q, samples_first, verbose] = values{:};
  if isempty(P)
    P = 0;
  end
  if ~(isnumeric(P) && isscalar(P) && isreal(P) && P >= 0 && P == fix(P))
    error('sompca:badInput', 'sompca_fit: P must be a whole number >= 0 or [], got %s', sompca_show(P));
  end
  if ~ischar(method)
    error('sompca:badInput', 'sompca_fit: Method must be a character vector such as ''so-mpca-rs''');
  end
  [Xc, shape] = sompca_samples(X, [], samples_first, 'sompca_fit');
  N = numel(shape);
  if isempty(mode)
    cmode = -1;
  elseif ischar(mode) && strcmpi(mode, 'all')
    cmode = -2;
  elseif isnumeric(mode) && isscalar(mode) && isreal(mode) && mode == fix(mode) && mode >= 1 && mode <= N
    cmode = double(mode) - 1;
  else
    error('sompca:badInput', 'sompca_fit: Mode must be [], ''all'' or a mode 1..%d, got %s', N, sompca_show(mode));
  end
  opts = struct('method', method, 'n_components', double(P), 'mode', cmode, ...
                'max_iter', sompca_scalar(max_iter, 'MaxIter'), 'tol', sompca_scalar(tol, 'Tol'), ...
                'n_threads', sompca_scalar(threads, 'Threads'), 'q', sompca_scalar(q, 'Q'), ...
                'verbose', double(logical(sompca_scalar(verbose, 'Verbose'))));
  model = sompca_model(sompca_mex('fit', Xc, shape, opts));
end

function v = sompca_scalar(v, name)
  if islogical(v)
    v = double(v);
  end
  if ~(isnumeric(v) && isscalar(v) && isreal(v))
    error('sompca:badInput', 'sompca_fit: %s must be a real scalar, got %s', name, sompca_show(v));
  end
  v = double(v);
end
