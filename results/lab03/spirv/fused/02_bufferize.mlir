#map = affine_map<(d0) -> (d0 * 8)>
#map1 = affine_map<(d0, d1) -> (d0, d1)>
#map2 = affine_map<(d0, d1) -> (d1)>
module {
  func.func @matmul_bias_relu(%arg0: memref<64x64xf32>, %arg1: memref<64x64xf32>, %arg2: memref<64xf32>, %arg3: memref<64x64xf32>) {
    %cst = arith.constant 0.000000e+00 : f32
    scf.forall (%arg4, %arg5) in (8, 8) {
      %0 = affine.apply #map(%arg4)
      %1 = affine.apply #map(%arg5)
      %subview = memref.subview %arg0[%0, 0] [8, 64] [1, 1] : memref<64x64xf32> to memref<8x64xf32, strided<[64, 1], offset: ?>>
      %subview_0 = memref.subview %arg1[0, %1] [64, 8] [1, 1] : memref<64x64xf32> to memref<64x8xf32, strided<[64, 1], offset: ?>>
      %subview_1 = memref.subview %arg2[%1] [8] [1] : memref<64xf32> to memref<8xf32, strided<[1], offset: ?>>
      %subview_2 = memref.subview %arg3[%0, %1] [8, 8] [1, 1] : memref<64x64xf32> to memref<8x8xf32, strided<[64, 1], offset: ?>>
      scf.forall (%arg6, %arg7) in (8, 8) {
        %subview_3 = memref.subview %subview[%arg6, 0] [1, 64] [1, 1] : memref<8x64xf32, strided<[64, 1], offset: ?>> to memref<1x64xf32, strided<[64, 1], offset: ?>>
        %subview_4 = memref.subview %subview_0[0, %arg7] [64, 1] [1, 1] : memref<64x8xf32, strided<[64, 1], offset: ?>> to memref<64x1xf32, strided<[64, 1], offset: ?>>
        %alloc = memref.alloc() {alignment = 64 : i64} : memref<1x1xf32>
        linalg.fill ins(%cst : f32) outs(%alloc : memref<1x1xf32>)
        linalg.matmul ins(%subview_3, %subview_4 : memref<1x64xf32, strided<[64, 1], offset: ?>>, memref<64x1xf32, strided<[64, 1], offset: ?>>) outs(%alloc : memref<1x1xf32>)
        %subview_5 = memref.subview %subview_1[%arg7] [1] [1] : memref<8xf32, strided<[1], offset: ?>> to memref<1xf32, strided<[1], offset: ?>>
        %subview_6 = memref.subview %subview_2[%arg6, %arg7] [1, 1] [1, 1] : memref<8x8xf32, strided<[64, 1], offset: ?>> to memref<1x1xf32, strided<[64, 1], offset: ?>>
        linalg.generic {indexing_maps = [#map1, #map2, #map1], iterator_types = ["parallel", "parallel"]} ins(%alloc, %subview_5 : memref<1x1xf32>, memref<1xf32, strided<[1], offset: ?>>) outs(%subview_6 : memref<1x1xf32, strided<[64, 1], offset: ?>>) {
        ^bb0(%in: f32, %in_7: f32, %out: f32):
          %2 = arith.addf %in, %in_7 : f32
          %3 = arith.maximumf %2, %cst : f32
          linalg.yield %3 : f32
        }
        memref.copy %subview_6, %subview_6 : memref<1x1xf32, strided<[64, 1], offset: ?>> to memref<1x1xf32, strided<[64, 1], offset: ?>>
      }
      memref.copy %subview_2, %subview_2 : memref<8x8xf32, strided<[64, 1], offset: ?>> to memref<8x8xf32, strided<[64, 1], offset: ?>>
    }
    return
  }
}
