#map = affine_map<()[s0] -> (s0 * 8)>
module attributes {gpu.container_module} {
  func.func @matmul_bias_relu(%arg0: memref<64x64xf32>, %arg1: memref<64x64xf32>, %arg2: memref<64xf32>, %arg3: memref<64x64xf32>) {
    %c1 = arith.constant 1 : index
    %c8 = arith.constant 8 : index
    gpu.launch_func  @matmul_bias_relu_kernel::@matmul_bias_relu_kernel blocks in (%c8, %c8, %c1) threads in (%c8, %c8, %c1)  args(%arg0 : memref<64x64xf32>, %arg1 : memref<64x64xf32>, %arg2 : memref<64xf32>, %arg3 : memref<64x64xf32>)
    return
  }
  gpu.module @matmul_bias_relu_kernel {
    gpu.func @matmul_bias_relu_kernel(%arg0: memref<64x64xf32>, %arg1: memref<64x64xf32>, %arg2: memref<64xf32>, %arg3: memref<64x64xf32>) kernel attributes {known_block_size = array<i32: 8, 8, 1>, known_grid_size = array<i32: 8, 8, 1>} {
      %c1 = arith.constant 1 : index
      %c64 = arith.constant 64 : index
      %c0 = arith.constant 0 : index
      %cst = arith.constant 0.000000e+00 : f32
      %block_id_x = gpu.block_id  x
      %block_id_y = gpu.block_id  y
      %thread_id_x = gpu.thread_id  x
      %thread_id_y = gpu.thread_id  y
      %0 = affine.apply #map()[%block_id_y]
      %1 = affine.apply #map()[%block_id_x]
      %subview = memref.subview %arg0[%0, 0] [8, 64] [1, 1] : memref<64x64xf32> to memref<8x64xf32, strided<[64, 1], offset: ?>>
      %subview_0 = memref.subview %arg1[0, %1] [64, 8] [1, 1] : memref<64x64xf32> to memref<64x8xf32, strided<[64, 1], offset: ?>>
      %subview_1 = memref.subview %arg2[%1] [8] [1] : memref<64xf32> to memref<8xf32, strided<[1], offset: ?>>
      %subview_2 = memref.subview %arg3[%0, %1] [8, 8] [1, 1] : memref<64x64xf32> to memref<8x8xf32, strided<[64, 1], offset: ?>>
      %subview_3 = memref.subview %subview[%thread_id_y, 0] [1, 64] [1, 1] : memref<8x64xf32, strided<[64, 1], offset: ?>> to memref<1x64xf32, strided<[64, 1], offset: ?>>
      %subview_4 = memref.subview %subview_0[0, %thread_id_x] [64, 1] [1, 1] : memref<64x8xf32, strided<[64, 1], offset: ?>> to memref<64x1xf32, strided<[64, 1], offset: ?>>
      %alloca = memref.alloca() {alignment = 64 : i64} : memref<1x1xf32, 6>
      memref.store %cst, %alloca[%c0, %c0] : memref<1x1xf32, 6>
      scf.for %arg4 = %c0 to %c64 step %c1 {
        %6 = memref.load %subview_3[%c0, %arg4] : memref<1x64xf32, strided<[64, 1], offset: ?>>
        %7 = memref.load %subview_4[%arg4, %c0] : memref<64x1xf32, strided<[64, 1], offset: ?>>
        %8 = memref.load %alloca[%c0, %c0] : memref<1x1xf32, 6>
        %9 = arith.mulf %6, %7 : f32
        %10 = arith.addf %8, %9 : f32
        memref.store %10, %alloca[%c0, %c0] : memref<1x1xf32, 6>
      }
      %subview_5 = memref.subview %subview_1[%thread_id_x] [1] [1] : memref<8xf32, strided<[1], offset: ?>> to memref<1xf32, strided<[1], offset: ?>>
      %subview_6 = memref.subview %subview_2[%thread_id_y, %thread_id_x] [1, 1] [1, 1] : memref<8x8xf32, strided<[64, 1], offset: ?>> to memref<1x1xf32, strided<[64, 1], offset: ?>>
      %2 = memref.load %alloca[%c0, %c0] : memref<1x1xf32, 6>
      %3 = memref.load %subview_5[%c0] : memref<1xf32, strided<[1], offset: ?>>
      %4 = arith.addf %2, %3 : f32
      %5 = arith.maximumf %4, %cst : f32
      memref.store %5, %subview_6[%c0, %c0] : memref<1x1xf32, strided<[64, 1], offset: ?>>
      gpu.return
    }
  }
}
