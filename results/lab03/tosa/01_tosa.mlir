#map = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#map1 = affine_map<(d0, d1, d2) -> (d0, 0, d2)>
module {
  func.func @matmul_bias_relu(%arg0: tensor<256x256xf32>, %arg1: tensor<256x256xf32>, %arg2: tensor<256xf32>) -> tensor<256x256xf32> attributes {lab03.num_results = 1 : i64, llvm.emit_c_interface} {
    %cst = arith.constant 3.40282347E+38 : f32
    %cst_0 = arith.constant 0.000000e+00 : f32
    %expanded = tensor.expand_shape %arg0 [[0, 1], [2]] output_shape [1, 256, 256] : tensor<256x256xf32> into tensor<1x256x256xf32>
    %expanded_1 = tensor.expand_shape %arg1 [[0, 1], [2]] output_shape [1, 256, 256] : tensor<256x256xf32> into tensor<1x256x256xf32>
    %0 = tensor.empty() : tensor<1x256x256xf32>
    %1 = linalg.fill ins(%cst_0 : f32) outs(%0 : tensor<1x256x256xf32>) -> tensor<1x256x256xf32>
    %2 = linalg.batch_matmul ins(%expanded, %expanded_1 : tensor<1x256x256xf32>, tensor<1x256x256xf32>) outs(%1 : tensor<1x256x256xf32>) -> tensor<1x256x256xf32>
    %expanded_2 = tensor.expand_shape %arg2 [[0, 1, 2]] output_shape [1, 1, 256] : tensor<256xf32> into tensor<1x1x256xf32>
    %3 = tensor.empty() : tensor<1x256x256xf32>
    %4 = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel", "parallel"]} ins(%2, %expanded_2 : tensor<1x256x256xf32>, tensor<1x1x256xf32>) outs(%3 : tensor<1x256x256xf32>) {
    ^bb0(%in: f32, %in_3: f32, %out: f32):
      %7 = arith.addf %in, %in_3 : f32
      linalg.yield %7 : f32
    } -> tensor<1x256x256xf32>
    %5 = tensor.empty() : tensor<1x256x256xf32>
    %6 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel", "parallel"]} ins(%4 : tensor<1x256x256xf32>) outs(%5 : tensor<1x256x256xf32>) {
    ^bb0(%in: f32, %out: f32):
      %7 = arith.minimumf %in, %cst : f32
      %8 = arith.maximumf %7, %cst_0 : f32
      linalg.yield %8 : f32
    } -> tensor<1x256x256xf32>
    %collapsed = tensor.collapse_shape %6 [[0, 1], [2]] : tensor<1x256x256xf32> into tensor<256x256xf32>
    return %collapsed : tensor<256x256xf32>
  }
}
