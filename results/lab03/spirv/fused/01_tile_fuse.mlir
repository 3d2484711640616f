#map = affine_map<(d0) -> (d0 * 8)>
#map1 = affine_map<(d0, d1) -> (d0, d1)>
#map2 = affine_map<(d0, d1) -> (d1)>
module {
  func.func @matmul_bias_relu(%arg0: tensor<64x64xf32>, %arg1: tensor<64x64xf32>, %arg2: tensor<64xf32>) -> tensor<64x64xf32> {
    %cst = arith.constant 0.000000e+00 : f32
    %0 = tensor.empty() : tensor<64x64xf32>
    %1 = scf.forall (%arg3, %arg4) in (8, 8) shared_outs(%arg5 = %0) -> (tensor<64x64xf32>) {
      %2 = affine.apply #map(%arg3)
      %3 = affine.apply #map(%arg4)
      %4 = affine.apply #map(%arg3)
      %5 = affine.apply #map(%arg4)
      %extracted_slice = tensor.extract_slice %arg0[%4, 0] [8, 64] [1, 1] : tensor<64x64xf32> to tensor<8x64xf32>
      %extracted_slice_0 = tensor.extract_slice %arg1[0, %5] [64, 8] [1, 1] : tensor<64x64xf32> to tensor<64x8xf32>
      %extracted_slice_1 = tensor.extract_slice %arg2[%3] [8] [1] : tensor<64xf32> to tensor<8xf32>
      %extracted_slice_2 = tensor.extract_slice %arg5[%2, %3] [8, 8] [1, 1] : tensor<64x64xf32> to tensor<8x8xf32>
      %6 = scf.forall (%arg6, %arg7) in (8, 8) shared_outs(%arg8 = %extracted_slice_2) -> (tensor<8x8xf32>) {
        %extracted_slice_3 = tensor.extract_slice %extracted_slice[%arg6, 0] [1, 64] [1, 1] : tensor<8x64xf32> to tensor<1x64xf32>
        %extracted_slice_4 = tensor.extract_slice %extracted_slice_0[0, %arg7] [64, 1] [1, 1] : tensor<64x8xf32> to tensor<64x1xf32>
        %7 = tensor.empty() : tensor<1x1xf32>
        %8 = linalg.fill ins(%cst : f32) outs(%7 : tensor<1x1xf32>) -> tensor<1x1xf32>
        %9 = linalg.matmul ins(%extracted_slice_3, %extracted_slice_4 : tensor<1x64xf32>, tensor<64x1xf32>) outs(%8 : tensor<1x1xf32>) -> tensor<1x1xf32>
        %extracted_slice_5 = tensor.extract_slice %extracted_slice_1[%arg7] [1] [1] : tensor<8xf32> to tensor<1xf32>
        %extracted_slice_6 = tensor.extract_slice %arg8[%arg6, %arg7] [1, 1] [1, 1] : tensor<8x8xf32> to tensor<1x1xf32>
        %10 = linalg.generic {indexing_maps = [#map1, #map2, #map1], iterator_types = ["parallel", "parallel"]} ins(%9, %extracted_slice_5 : tensor<1x1xf32>, tensor<1xf32>) outs(%extracted_slice_6 : tensor<1x1xf32>) {
        ^bb0(%in: f32, %in_7: f32, %out: f32):
          %11 = arith.addf %in, %in_7 : f32
          %12 = arith.maximumf %11, %cst : f32
          linalg.yield %12 : f32
        } -> tensor<1x1xf32>
        scf.forall.in_parallel {
          tensor.parallel_insert_slice %10 into %arg8[%arg6, %arg7] [1, 1] [1, 1] : tensor<1x1xf32> into tensor<8x8xf32>
        }
      }
      scf.forall.in_parallel {
        tensor.parallel_insert_slice %6 into %arg5[%2, %3] [8, 8] [1, 1] : tensor<8x8xf32> into tensor<64x64xf32>
      }
    }
    return %1 : tensor<64x64xf32>
  }
}
