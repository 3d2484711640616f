#map = affine_map<(d0) -> (d0 * 64)>
#map1 = affine_map<(d0, d1) -> (d0, d1)>
#map2 = affine_map<(d0, d1) -> (d1)>
module {
  func.func @matmul_bias_relu(%arg0: tensor<256x256xf32>, %arg1: tensor<256x256xf32>, %arg2: tensor<256xf32>) -> tensor<256x256xf32> {
    %c1 = arith.constant 1 : index
    %c64 = arith.constant 64 : index
    %c252 = arith.constant 252 : index
    %c16 = arith.constant 16 : index
    %c6 = arith.constant 6 : index
    %c256 = arith.constant 256 : index
    %c0 = arith.constant 0 : index
    %cst = arith.constant 0.000000e+00 : f32
    %0 = tensor.empty() : tensor<256x256xf32>
    %1 = scf.for %arg3 = %c0 to %c252 step %c6 iter_args(%arg4 = %0) -> (tensor<256x256xf32>) {
      %6 = scf.for %arg5 = %c0 to %c256 step %c16 iter_args(%arg6 = %arg4) -> (tensor<256x256xf32>) {
        %extracted_slice = tensor.extract_slice %arg6[%arg3, %arg5] [6, 16] [1, 1] : tensor<256x256xf32> to tensor<6x16xf32>
        %7 = linalg.fill {lab03.tile_group = 0 : i64} ins(%cst : f32) outs(%extracted_slice : tensor<6x16xf32>) -> tensor<6x16xf32>
        %inserted_slice = tensor.insert_slice %7 into %arg6[%arg3, %arg5] [6, 16] [1, 1] : tensor<6x16xf32> into tensor<256x256xf32>
        scf.yield %inserted_slice : tensor<256x256xf32>
      }
      scf.yield %6 : tensor<256x256xf32>
    }
    %2 = scf.for %arg3 = %c0 to %c256 step %c16 iter_args(%arg4 = %1) -> (tensor<256x256xf32>) {
      %extracted_slice = tensor.extract_slice %arg4[252, %arg3] [4, 16] [1, 1] : tensor<256x256xf32> to tensor<4x16xf32>
      %6 = linalg.fill {lab03.tile_group = 0 : i64} ins(%cst : f32) outs(%extracted_slice : tensor<4x16xf32>) -> tensor<4x16xf32>
      %inserted_slice = tensor.insert_slice %6 into %arg4[252, %arg3] [4, 16] [1, 1] : tensor<4x16xf32> into tensor<256x256xf32>
      scf.yield %inserted_slice : tensor<256x256xf32>
    }
    %3 = scf.forall (%arg3) in (4) shared_outs(%arg4 = %2) -> (tensor<256x256xf32>) {
      %6 = affine.apply #map(%arg3)
      %extracted_slice = tensor.extract_slice %arg1[0, %6] [256, 64] [1, 1] : tensor<256x256xf32> to tensor<256x64xf32>
      %extracted_slice_0 = tensor.extract_slice %arg4[0, %6] [256, 64] [1, 1] : tensor<256x256xf32> to tensor<256x64xf32>
      %7 = scf.for %arg5 = %c0 to %c252 step %c6 iter_args(%arg6 = %extracted_slice_0) -> (tensor<256x64xf32>) {
        %9 = scf.for %arg7 = %c0 to %c64 step %c16 iter_args(%arg8 = %arg6) -> (tensor<256x64xf32>) {
          %10 = scf.for %arg9 = %c0 to %c256 step %c1 iter_args(%arg10 = %arg8) -> (tensor<256x64xf32>) {
            %extracted_slice_1 = tensor.extract_slice %extracted_slice[%arg9, %arg7] [1, 16] [1, 1] : tensor<256x64xf32> to tensor<1x16xf32>
            %extracted_slice_2 = tensor.extract_slice %arg10[%arg5, %arg7] [6, 16] [1, 1] : tensor<256x64xf32> to tensor<6x16xf32>
            %extracted_slice_3 = tensor.extract_slice %arg0[%arg5, %arg9] [6, 1] [1, 1] : tensor<256x256xf32> to tensor<6x1xf32>
            %11 = linalg.matmul {lab03.tile_group = 1 : i64} ins(%extracted_slice_3, %extracted_slice_1 : tensor<6x1xf32>, tensor<1x16xf32>) outs(%extracted_slice_2 : tensor<6x16xf32>) -> tensor<6x16xf32>
            %inserted_slice = tensor.insert_slice %11 into %arg10[%arg5, %arg7] [6, 16] [1, 1] : tensor<6x16xf32> into tensor<256x64xf32>
            scf.yield %inserted_slice : tensor<256x64xf32>
          }
          scf.yield %10 : tensor<256x64xf32>
        }
        scf.yield %9 : tensor<256x64xf32>
      }
      %8 = scf.for %arg5 = %c0 to %c64 step %c16 iter_args(%arg6 = %7) -> (tensor<256x64xf32>) {
        %9 = scf.for %arg7 = %c0 to %c256 step %c1 iter_args(%arg8 = %arg6) -> (tensor<256x64xf32>) {
          %extracted_slice_1 = tensor.extract_slice %arg0[252, %arg7] [4, 1] [1, 1] : tensor<256x256xf32> to tensor<4x1xf32>
          %extracted_slice_2 = tensor.extract_slice %extracted_slice[%arg7, %arg5] [1, 16] [1, 1] : tensor<256x64xf32> to tensor<1x16xf32>
          %extracted_slice_3 = tensor.extract_slice %arg8[252, %arg5] [4, 16] [1, 1] : tensor<256x64xf32> to tensor<4x16xf32>
          %10 = linalg.matmul {lab03.tile_group = 1 : i64} ins(%extracted_slice_1, %extracted_slice_2 : tensor<4x1xf32>, tensor<1x16xf32>) outs(%extracted_slice_3 : tensor<4x16xf32>) -> tensor<4x16xf32>
          %inserted_slice = tensor.insert_slice %10 into %arg8[252, %arg5] [4, 16] [1, 1] : tensor<4x16xf32> into tensor<256x64xf32>
          scf.yield %inserted_slice : tensor<256x64xf32>
        }
        scf.yield %9 : tensor<256x64xf32>
      }
      scf.forall.in_parallel {
        tensor.parallel_insert_slice %8 into %arg4[0, %6] [256, 64] [1, 1] : tensor<256x64xf32> into tensor<256x256xf32>
      }
    }
    %4 = scf.for %arg3 = %c0 to %c252 step %c6 iter_args(%arg4 = %0) -> (tensor<256x256xf32>) {
      %6 = scf.for %arg5 = %c0 to %c256 step %c16 iter_args(%arg6 = %arg4) -> (tensor<256x256xf32>) {
        %extracted_slice = tensor.extract_slice %arg2[%arg5] [16] [1] : tensor<256xf32> to tensor<16xf32>
        %extracted_slice_0 = tensor.extract_slice %arg6[%arg3, %arg5] [6, 16] [1, 1] : tensor<256x256xf32> to tensor<6x16xf32>
        %extracted_slice_1 = tensor.extract_slice %3[%arg3, %arg5] [6, 16] [1, 1] : tensor<256x256xf32> to tensor<6x16xf32>
        %7 = linalg.generic {indexing_maps = [#map1, #map2, #map1], iterator_types = ["parallel", "parallel"]} ins(%extracted_slice_1, %extracted_slice : tensor<6x16xf32>, tensor<16xf32>) outs(%extracted_slice_0 : tensor<6x16xf32>) attrs =  {lab03.tile_group = 0 : i64} {
        ^bb0(%in: f32, %in_2: f32, %out: f32):
          %8 = arith.addf %in, %in_2 : f32
          %9 = arith.maximumf %8, %cst : f32
          linalg.yield %9 : f32
        } -> tensor<6x16xf32>
        %inserted_slice = tensor.insert_slice %7 into %arg6[%arg3, %arg5] [6, 16] [1, 1] : tensor<6x16xf32> into tensor<256x256xf32>
        scf.yield %inserted_slice : tensor<256x256xf32>
      }
      scf.yield %6 : tensor<256x256xf32>
    }
    %5 = scf.for %arg3 = %c0 to %c256 step %c16 iter_args(%arg4 = %4) -> (tensor<256x256xf32>) {
      %extracted_slice = tensor.extract_slice %3[252, %arg3] [4, 16] [1, 1] : tensor<256x256xf32> to tensor<4x16xf32>
      %extracted_slice_0 = tensor.extract_slice %arg2[%arg3] [16] [1] : tensor<256xf32> to tensor<16xf32>
      %extracted_slice_1 = tensor.extract_slice %arg4[252, %arg3] [4, 16] [1, 1] : tensor<256x256xf32> to tensor<4x16xf32>
      %6 = linalg.generic {indexing_maps = [#map1, #map2, #map1], iterator_types = ["parallel", "parallel"]} ins(%extracted_slice, %extracted_slice_0 : tensor<4x16xf32>, tensor<16xf32>) outs(%extracted_slice_1 : tensor<4x16xf32>) attrs =  {lab03.tile_group = 0 : i64} {
      ^bb0(%in: f32, %in_2: f32, %out: f32):
        %7 = arith.addf %in, %in_2 : f32
        %8 = arith.maximumf %7, %cst : f32
        linalg.yield %8 : f32
      } -> tensor<4x16xf32>
      %inserted_slice = tensor.insert_slice %6 into %arg4[252, %arg3] [4, 16] [1, 1] : tensor<4x16xf32> into tensor<256x256xf32>
      scf.yield %inserted_slice : tensor<256x256xf32>
    }
    return %5 : tensor<256x256xf32>
  }
}
