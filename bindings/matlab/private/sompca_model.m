function model = sompca_model(info)
% The model struct of the library's contents of a model (sompca_mex's
% info: C-order arrays, 0-based modes, the model file's bytes).
  shape = info.shape;
  N = numel(shape);
  S = prod(shape);
  % idx(k): the C-order index of the k-th element of a sample in MATLAB's
  % column-major order.
  if N > 1
    idx = permute(reshape(1:S, fliplr(shape)), N:-1:1);
    idx = idx(:);
  else
    idx = (1:S)';
  end
  projections = info.projections;
  if strcmp(info.method, 'pca')
    projections{1} = projections{1}(idx, :);
  end
  if info.mode == -2
    mode = 'all';
  elseif info.mode >= 0
    mode = info.mode + 1;
  else
    mode = [];
  end
  if strncmp(info.method, 'so-mpca', 7)
    feature_modes = info.feature_modes + 1;
    feature_modes(info.feature_modes == -2) = 0;
  else
    feature_modes = [];
  end
  model = struct('Method', info.method, 'Shape', shape, 'NumComponents', info.n_components, ...
                 'NumSamples', info.n_samples, 'Mode', mode, 'Projections', {projections}, ...
                 'Variance', info.variance, 'VarianceRatio', info.variance_ratio, ...
                 'Mean', reshape(info.mean(idx), [shape, 1]), 'History', {info.history}, ...
                 'Iterations', info.iterations, 'ExtractionOrder', info.extraction + 1, ...
                 'FeatureModes', feature_modes, 'Ranks', info.ranks, 'MaxIter', info.max_iter, ...
                 'Tol', info.tol, 'Q', info.q, 'File', info.file);
end
