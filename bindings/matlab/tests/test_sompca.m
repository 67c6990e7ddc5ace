function test_sompca(dir)
%TEST_SOMPCA  The MATLAB/Octave binding's tests (make test-octave).
%   TEST_SOMPCA(DIR) checks every fit of DIR/manifest.txt, written by
%   tests/bindings/reference.py with Python's sompca, against the binding's
%   fit of the same samples given samples last, samples first and in their
%   own class; reads Python's model files; checks the errors of bad
%   arguments; and writes DIR/octave_model.h5 and octave_features.bin for
%   the Python and R steps of the MATLAB -> Python -> R check.
%   MATLAB-compatible (assert, try/catch); errors on the first failure.
  tol = 1e-12;  % the same library on the same samples: equal to rounding
  checks = 0;
  [data, cases] = read_manifest(fullfile(dir, 'manifest.txt'));
  samples = struct();
  for k = 1:numel(data)
    d = data{k};
    samples.(d.name) = read_samples(fullfile(dir, [d.name '.bin']), d.dtype, d.shape);
  end

  for k = 1:numel(cases)
    c = cases{k};
    X = samples.(c.data);              % I_1 x ... x I_N x M, samples last
    shape = data_shape(data, c.data);
    args = {'Method', c.method};
    if strcmp(c.mode, 'all')
      args = [args, {'Mode', 'all'}];
    elseif ~strcmp(c.mode, 'none')
      args = [args, {'Mode', str2double(c.mode) + 1}];   % Python's 0-based mode n is MATLAB's n+1
    end
    if c.max_iter > 0, args = [args, {'MaxIter', c.max_iter}]; end
    if c.tol > 0, args = [args, {'Tol', c.tol}]; end
    if c.q > 0, args = [args, {'Q', c.q}]; end
    model = sompca_fit(X, c.p, args{:});
    checks = checks + check_model(model, dir, c, shape, tol);
    F = sompca_transform(model, X);
    checks = checks + close(F, read_bin(dir, c.name, 'features', size(F)), tol, [c.name ': features']);

    % Samples first: the same model.
    N = numel(shape);
    Xf = permute(X, [N + 1, 1:N]);
    model_f = sompca_fit(Xf, c.p, args{:}, 'SamplesFirst', true);
    checks = checks + close(model_f.Variance, model.Variance, 0, [c.name ': samples first, variance']);
    checks = checks + close(sompca_transform(model_f, Xf, 'SamplesFirst', true), F, 0, ...
                            [c.name ': samples first, features']);

    % Python's model file: the same model and features.
    py = sompca_load(fullfile(dir, [c.name '.h5']));
    checks = checks + check_model(py, dir, c, shape, tol);
    checks = checks + close(sompca_transform(py, X), F, tol, [c.name ': features of Python''s model']);
  end

  % One sample as an I_1 x ... x I_N array; double samples of a uint8 fit.
  a = samples.a;
  model = sompca_fit(a, 3);
  F = sompca_transform(model, a);
  checks = checks + close(sompca_transform(model, a(:, :, :, 7)), F(7, :), 0, 'one sample');
  checks = checks + close(size(sompca_transform(model, a(:, :, :, [])), 1), 0, 0, 'no samples');
  b = samples.b;
  mb = sompca_fit(b, 4);
  checks = checks + close(sompca_transform(mb, double(b)), sompca_transform(mb, b), 0, 'uint8 as double');
  % int16 samples are converted to double: the same model as the uint8 ones.
  checks = checks + close(sompca_fit(int16(b), 4).Variance, mb.Variance, 0, 'int16 samples');

  % Save and load: the same struct.
  file = [tempname() '.h5'];
  sompca_save(model, file);
  again = sompca_load(file);
  delete(file);
  assert(isequal(rmfield(again, 'File'), rmfield(model, 'File')), 'save/load changed the model');
  checks = checks + 1;

  % For MATLAB -> Python -> R: a model fitted here and its features.
  sompca_save(model, fullfile(dir, 'octave_model.h5'));
  fid = fopen(fullfile(dir, 'octave_features.bin'), 'w');
  fwrite(fid, F', 'double', 0, 'ieee-le');   % C order, samples first
  fclose(fid);

  checks = checks + check_errors(a, model, dir);
  fprintf('test_sompca: %d checks passed\n', checks);
end

function n = check_model(model, dir, c, shape, tol)
  p = model.NumComponents;
  assert(strcmp(model.Method, c.method), '%s: method %s', c.name, model.Method);
  assert(isequal(model.Shape, shape), '%s: shape', c.name);
  n = 2;
  if strcmp(c.method, 'pca')
    % The rows of Python's projection follow a sample's C order; MATLAB's its X(:).
    u = read_bin(dir, c.name, 'u1', [prod(shape), p]);
    N = numel(shape);
    if N > 1
      u = reshape(permute(reshape(u, [fliplr(shape), p]), [N:-1:1, N + 1]), [], p);
    end
    n = n + close(model.Projections{1}, u, tol, [c.name ': projection']);
  else
    for m = 1:numel(shape)
      n = n + close(model.Projections{m}, read_bin(dir, c.name, sprintf('u%d', m), [shape(m), p]), tol, ...
                    sprintf('%s: projection %d', c.name, m));
    end
  end
  n = n + close(model.Variance, read_bin(dir, c.name, 'variance', [p, 1]), tol, [c.name ': variance']);
  n = n + close(model.VarianceRatio, read_bin(dir, c.name, 'ratio', [p, 1]), tol, [c.name ': ratio']);
  n = n + close(model.Mean, read_bin(dir, c.name, 'mean', shape), tol, [c.name ': mean']);
  n = n + close(model.Iterations, read_bin(dir, c.name, 'iterations', [p, 1]), 0, [c.name ': iterations']);
  assert(numel(model.History) == p, '%s: history', c.name);
end

function n = check_errors(a, model, dir)
  % Bad arguments: MATLAB errors with sompca identifiers.
  bad = {
    {@() sompca_fit(a, 3, 'Method', 'nope'), 'sompca:badInput', 'unknown method'}
    {@() sompca_fit(a, -1), 'sompca:badInput', 'P must be'}
    {@() sompca_fit(a, 3, 'Mode', 4), 'sompca:badInput', 'Mode must be'}
    {@() sompca_fit(a, 3, 'Colour', 1), 'sompca:badInput', 'unknown option'}
    {@() sompca_fit({1, 2}, 3), 'sompca:badInput', 'real'}
    {@() sompca_fit(a, 7), 'sompca:badInput', 'at most'}
    {@() sompca_fit(a, 3, 'Q', 2, 'Method', 'mpca'), 'sompca:badInput', 'q'}
    {@() sompca_fit(cat(4, a(:, :, :, 1:5), nan(6, 5, 4)), 3), 'sompca:badData', 'NaN'}
    {@() sompca_transform(model, a(:, :, 1:3, :)), 'sompca:badInput', 'want 6 x 5 x 4 x M'}
    {@() sompca_transform(struct('x', 1), a), 'sompca:badModel', 'sompca_fit or sompca_load'}
    {@() sompca_load(fullfile(dir, 'missing.h5')), 'sompca:io', 'missing.h5'}
    {@() sompca_load(fullfile(dir, 'a.bin')), 'sompca:badFile', 'a.bin'}
    };
  for k = 1:numel(bad)
    f = bad{k}{1};
    try
      f();
      error('test:noError', 'bad argument %d: no error (want %s)', k, bad{k}{2});
    catch e
      assert(strcmp(e.identifier, bad{k}{2}), 'bad argument %d: identifier %s (want %s): %s', ...
             k, e.identifier, bad{k}{2}, e.message);
      assert(~isempty(strfind(lower(e.message), lower(bad{k}{3}))), ...
             'bad argument %d: message "%s" lacks "%s"', k, e.message, bad{k}{3});
    end
  end
  % A corrupted model file: the library's checksum catches it.
  broken = model;
  broken.File(end - 100) = bitxor(broken.File(end - 100), uint8(1));
  try
    sompca_transform(broken, a);
    error('test:noError', 'a corrupted model transformed');
  catch e
    assert(any(strcmp(e.identifier, {'sompca:badFile'})), 'corrupted model: %s: %s', e.identifier, e.message);
  end
  n = numel(bad) + 1;
end

function n = close(got, want, tol, what)
  assert(isequal(size(got), size(want)), '%s: size %s, want %s', what, mat2str(size(got)), mat2str(size(want)));
  err = max(abs(double(got(:)) - double(want(:))));
  if isempty(err), err = 0; end
  assert(err <= tol, '%s: differs by %g (tolerance %g)', what, err, tol);
  n = 1;
end

function a = read_bin(dir, name, what, shape)
  % A C-order float64 array of the given shape, as a MATLAB array of that shape.
  fid = fopen(fullfile(dir, sprintf('%s_%s.bin', name, what)), 'r');
  v = fread(fid, Inf, 'double', 0, 'ieee-le');
  fclose(fid);
  a = c_order(v, shape);
end

function a = c_order(v, shape)
  shape = [shape, ones(1, 2 - numel(shape))];
  a = permute(reshape(v, [fliplr(shape), 1]), numel(shape):-1:1);
end

function X = read_samples(file, dtype, shape)
  % shape = [M, I_1, ..., I_N] (C order): the samples last, in their class.
  fid = fopen(file, 'r');
  v = fread(fid, Inf, 'double', 0, 'ieee-le');
  fclose(fid);
  X = c_order(v, shape);                           % M x I_1 x ... x I_N
  X = permute(X, [2:numel(shape), 1]);            % I_1 x ... x I_N x M
  switch dtype
    case 'uint8', X = uint8(X);
    case 'float32', X = single(X);
    case 'bool', X = logical(X);
  end
end

function s = data_shape(data, name)
  for k = 1:numel(data)
    if strcmp(data{k}.name, name)
      s = data{k}.shape(2:end);
    end
  end
end

function [data, cases] = read_manifest(file)
  data = {};
  cases = {};
  text = fileread(file);
  lines = strsplit(strtrim(text), "\n");
  for k = 1:numel(lines)
    w = strsplit(strtrim(lines{k}), ' ');
    if strcmp(w{1}, 'data')
      data{end + 1} = struct('name', w{2}, 'dtype', w{3}, 'shape', str2double(w(4:end)));
    else
      cases{end + 1} = struct('name', w{2}, 'data', w{3}, 'method', w{4}, 'p', str2double(w{5}), ...
                              'mode', w{6}, 'max_iter', str2double(w{7}), 'tol', str2double(w{8}), ...
                              'q', str2double(w{9}));
    end
  end
end
